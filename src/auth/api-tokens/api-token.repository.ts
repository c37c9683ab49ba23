import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../../common/pagination';
import { Keyset } from '../../database/keyset';
import { Db, execute, query, queryOne, sql } from '../../database/sql';
import type { ApiTokenRow } from './api-token.entity';

const COLUMNS = sql.raw('id, user_id, name, token_hash, created_at, expires_at, last_used_at, last_used_ip');
const OLDEST_FIRST = new Keyset<ApiTokenRow>({ time: 'created_at', id: 'id' }, 'ASC', (row) => [row.created_at, row.id]);

/** The SQL of `api_tokens` and `api_token_addresses`. */
@Injectable()
export class ApiTokenRepository {
  async insert(db: Db, token: ApiTokenRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO api_tokens (id, user_id, name, token_hash, created_at, expires_at, last_used_at, last_used_ip)
          VALUES (${token.id}, ${token.user_id}, ${token.name}, ${token.token_hash}, ${token.created_at}, ${token.expires_at}, NULL, NULL)`,
    );
  }

  /** Oldest first; one user's (on api_tokens_user_idx) or everyone's (on api_tokens_created_idx). */
  async list(db: Db, userId: string | null, page: PageQuery): Promise<Page<ApiTokenRow>> {
    const after = OLDEST_FIRST.after(page.cursor);
    const conditions = [...(userId === null ? [] : [sql`user_id = ${userId}`]), ...(after ? [after] : [])];
    const rows = await query<ApiTokenRow>(
      db,
      sql`SELECT ${COLUMNS} FROM api_tokens ${sql.where(conditions)} ${OLDEST_FIRST.orderAndLimit(page)}`,
    );
    return OLDEST_FIRST.page(rows, page);
  }

  find(db: Db, id: string): Promise<ApiTokenRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM api_tokens WHERE id = ${id}`);
  }

  findByHash(db: Db, tokenHash: string): Promise<ApiTokenRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = ${tokenHash}`);
  }

  /** Deletes the token (one user's only, unless `userId` is null); answers what was deleted. */
  delete(db: Db, id: string, userId: string | null): Promise<ApiTokenRow | null> {
    return queryOne(
      db,
      sql`DELETE FROM api_tokens WHERE id = ${id} ${userId === null ? sql`` : sql`AND user_id = ${userId}`} RETURNING ${COLUMNS}`,
    );
  }

  /** Deletes every token of the user; answers them. */
  deleteAllOf(db: Db, userId: string): Promise<ApiTokenRow[]> {
    return query(db, sql`DELETE FROM api_tokens WHERE user_id = ${userId} RETURNING ${COLUMNS}`);
  }

  async touch(db: Db, id: string, at: Date, ip: string): Promise<void> {
    await execute(db, sql`UPDATE api_tokens SET last_used_at = ${at}, last_used_ip = ${ip} WHERE id = ${id}`);
  }

  /** Records an address the token was used from: whether it is a new one. */
  async addAddress(db: Db, id: string, ip: string, at: Date): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`INSERT INTO api_token_addresses (token_id, ip, first_used_at) VALUES (${id}, ${ip}, ${at}) ON CONFLICT DO NOTHING`,
      )) === 1
    );
  }
}

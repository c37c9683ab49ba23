import { Injectable } from '@nestjs/common';
import { Db, execute, queryOne, sql } from '../database/sql';
import type { AccountTokenPurpose, AccountTokenRow } from './account-token.entity';

/** The SQL of `account_tokens`. */
@Injectable()
export class AccountTokenRepository {
  async insert(db: Db, token: AccountTokenRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO account_tokens (id, user_id, purpose, token_hash, sent_to, token_version, expires_at, used_at, created_at)
          VALUES (${token.id}, ${token.user_id}, ${token.purpose}, ${token.token_hash}, ${token.sent_to}, ${token.token_version},
                  ${token.expires_at}, ${token.used_at}, ${token.created_at})`,
    );
  }

  /** Ends the user's unused links of this purpose: only the newest one works. */
  async revokeUnused(db: Db, userId: string, purpose: AccountTokenPurpose): Promise<void> {
    await execute(db, sql`DELETE FROM account_tokens WHERE user_id = ${userId} AND purpose = ${purpose} AND used_at IS NULL`);
  }

  /**
   * Uses a link: marks it used if it is unused and unexpired, in one statement, so of two
   * requests with the same token only one gets the row. Null for an unknown, used or expired one.
   */
  consume(
    db: Db,
    tokenHash: string,
    purpose: AccountTokenPurpose,
  ): Promise<Pick<AccountTokenRow, 'user_id' | 'sent_to' | 'token_version'> | null> {
    return queryOne(
      db,
      sql`UPDATE account_tokens SET used_at = now()
           WHERE token_hash = ${tokenHash} AND purpose = ${purpose} AND used_at IS NULL AND expires_at > now()
          RETURNING user_id, sent_to, token_version`,
    );
  }

  /** Deletes up to `limit` links used or expired before `before` (on account_tokens_expires_idx for the expired); answers how many. */
  prune(db: Db, before: Date, limit: number): Promise<number> {
    return execute(
      db,
      sql`DELETE FROM account_tokens
           WHERE id IN (SELECT id FROM account_tokens WHERE expires_at < ${before} OR used_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`,
    );
  }
}

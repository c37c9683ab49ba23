import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { InboxRow } from './inbox.entity';

const COLUMNS = sql.raw(
  'id, name, phone_number_id, display_phone_number, business_account_id, status, access_token, app_secret, is_default, created_at, updated_at',
);

/** Oldest first: the default inbox, made by the migration, comes first. */
const OLDEST_FIRST = new Keyset<InboxRow>({ time: 'created_at', id: 'id' }, 'ASC', (row) => [row.created_at, row.id]);

/** The SQL of the `inboxes` table. */
@Injectable()
export class InboxRepository {
  /** A page of inboxes, oldest first (a company has a handful: the primary key's table scan is the plan). */
  async page(db: Db, page: PageQuery): Promise<Page<InboxRow>> {
    const after = OLDEST_FIRST.after(page.cursor);
    return OLDEST_FIRST.page(
      await query<InboxRow>(db, sql`SELECT ${COLUMNS} FROM inboxes ${sql.where(after ? [after] : [])} ${OLDEST_FIRST.orderAndLimit(page)}`),
      page,
    );
  }

  /** Every inbox: for routing, which needs them all at once. */
  list(db: Db): Promise<InboxRow[]> {
    return query<InboxRow>(db, sql`SELECT ${COLUMNS} FROM inboxes`);
  }

  find(db: Db, id: string): Promise<InboxRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM inboxes WHERE id = ${id}`);
  }

  /** Writes the default inbox's channel fields as the settings describe them. */
  async describeDefault(
    db: Db,
    id: string,
    fields: Pick<InboxRow, 'phone_number_id' | 'business_account_id' | 'access_token' | 'app_secret' | 'updated_at'>,
  ): Promise<void> {
    await execute(
      db,
      sql`UPDATE inboxes SET phone_number_id = ${fields.phone_number_id}, business_account_id = ${fields.business_account_id},
                             access_token = ${fields.access_token}, app_secret = ${fields.app_secret}, updated_at = ${fields.updated_at}
           WHERE id = ${id}`,
    );
  }
}

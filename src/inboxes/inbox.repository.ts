import { Injectable } from '@nestjs/common';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { InboxRow } from './inbox.entity';

const COLUMNS = sql.raw(
  'id, name, phone_number_id, display_phone_number, business_account_id, status, access_token, app_secret, is_default, created_at, updated_at',
);

/** The SQL of the `inboxes` table. */
@Injectable()
export class InboxRepository {
  /** Every inbox, the default first, then by name: a company has a handful, never a page's worth. */
  list(db: Db): Promise<InboxRow[]> {
    return query<InboxRow>(db, sql`SELECT ${COLUMNS} FROM inboxes ORDER BY is_default DESC, name, id`);
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

import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, Sql, sql } from '../database/sql';
import type { ChannelErrorRow } from './channel-error.entity';

const COLUMNS = sql.raw('e.id, e.received_at, e.code, e.title, e.details, e.error');
const NEWEST_FIRST = new Keyset<ChannelErrorRow>({ time: 'e.received_at', id: 'e.id' }, 'DESC', (row) => [row.received_at, row.id]);

/** The SQL of `channel_errors`. */
@Injectable()
export class ChannelErrorRepository {
  async insert(db: Db, row: ChannelErrorRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO channel_errors (id, received_at, code, title, details, error)
          VALUES (${row.id}, ${row.received_at}, ${row.code}, ${row.title}, ${row.details}, ${JSON.stringify(row.error)})`,
    );
  }

  /** Newest first, served in order by channel_errors_received_idx. Public so the tests can EXPLAIN it. */
  listStatement(page: PageQuery): Sql {
    const after = NEWEST_FIRST.after(page.cursor);
    return sql`SELECT ${COLUMNS} FROM channel_errors e ${sql.where(after ? [after] : [])} ${NEWEST_FIRST.orderAndLimit(page)}`;
  }

  async list(db: Db, page: PageQuery): Promise<Page<ChannelErrorRow>> {
    return NEWEST_FIRST.page(await query<ChannelErrorRow>(db, this.listStatement(page)), page);
  }
}

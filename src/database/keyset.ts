import { decodeCursor, encodeCursor, Page, PageQuery } from '../common/pagination';
import { Sql, sql } from './sql';

/**
 * Keyset pagination over (a timestamp column, the id column), written once for every list: the
 * condition that continues after a cursor, the ORDER BY that an index serves, LIMIT one row more
 * than the page (that row only tells that another page follows), and the page with its cursor.
 */
export class Keyset<Row> {
  private readonly comparison: '<' | '>';
  private readonly order: Sql;

  /**
   * `time` and `id`: the columns as the statement names them (`c.last_message_at`, `c.id`);
   * `keyOf`: the same two values read from a selected row.
   */
  constructor(
    private readonly columns: { time: string; id: string },
    direction: 'ASC' | 'DESC',
    private readonly keyOf: (row: Row) => [Date, string],
  ) {
    this.comparison = direction === 'DESC' ? '<' : '>';
    this.order = sql.raw(`ORDER BY ${columns.time} ${direction}, ${columns.id} ${direction}`);
  }

  /** The condition for the rows after `cursor` (a 400 when it is not one of this list's), or null on the first page. */
  after(cursor: string | undefined): Sql | null {
    if (!cursor) return null;
    const [time, id] = decodeCursor(cursor, ['timestamp', 'uuid']);
    return sql`(${sql.raw(this.columns.time)}, ${sql.raw(this.columns.id)}) ${sql.raw(this.comparison)} (${time}, ${id})`;
  }

  /** ORDER BY … LIMIT page size + 1. */
  orderAndLimit(page: PageQuery): Sql {
    return sql`${this.order} LIMIT ${page.limit + 1}`;
  }

  /** The page of rows fetched with `orderAndLimit`, its cursor pointing after the last row kept. */
  page<Selected extends Row>(rows: Selected[], page: PageQuery): Page<Selected> {
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    const next = rows.length > page.limit && last !== undefined ? this.keyOf(last) : null;
    return { data, next_cursor: next ? encodeCursor([next[0].toISOString(), next[1]]) : null };
  }
}

import { decodeCursor, encodeCursor, Page, PageQuery } from '../common/pagination';
import { Sql, sql } from './sql';

/**
 * The page sizes whose first page may keep its plan (RunOptions.keepPlan): the default, and what
 * the console asks (50 messages of a thread, 100 conversations). A connection keeps a statement per
 * size, so other sizes, and every page after a cursor, are planned each time.
 */
const KEPT_PAGE_SIZES = new Set([new PageQuery().limit, 50, 100]);
/**
 * The most walks (one per inbox, Keyset.mergedPage) a kept statement may merge: each connection
 * keeps a statement per number of walks, and its plan grows with them.
 */
const KEPT_WALKS = 20;

/** Whether a statement of this page, merging `walks` walks, may keep its plan: a first page of a size in KEPT_PAGE_SIZES. */
export function mayKeepPlan(page: PageQuery, walks = 1): boolean {
  return !page.cursor && KEPT_PAGE_SIZES.has(page.limit) && walks <= KEPT_WALKS;
}

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

  /**
   * ORDER BY … LIMIT page size + 1, the number written in the statement, not a parameter: a plan
   * kept without the values (RunOptions.keepPlan) then still knows how few rows the page needs. A
   * LIMIT parameter makes the planner assume a tenth of the rows, and the kept plan of the admin's
   * message search then read and sorted every match: 14 statements/s instead of 1,900.
   */
  orderAndLimit(page: PageQuery): Sql {
    const limit = page.limit + 1;
    if (!Number.isSafeInteger(limit) || limit < 2) throw new Error(`a page's limit must be a positive integer, not ${page.limit}`);
    return sql`${this.order} LIMIT ${sql.raw(String(limit))}`;
  }

  /**
   * One page of the union of several walks of a table, each a statement that keeps to one part of
   * it (one inbox) and is served in this order by an index of its own: each is limited to a page,
   * and PostgreSQL merges them in order (Merge Append), reading from each only as far as the merged
   * page needs, about as many rows as one walk of the whole would. The union is named `alias`, as
   * this order's columns name the table. At least one walk.
   */
  mergedPage(walks: Sql[], alias: string, page: PageQuery): Sql {
    const union = sql.join(
      walks.map((walk) => sql`(${walk} ${this.orderAndLimit(page)})`),
      ' UNION ALL ',
    );
    return sql`SELECT * FROM (${union}) ${sql.raw(alias)} ${this.orderAndLimit(page)}`;
  }

  /** The page of rows fetched with `orderAndLimit`, its cursor pointing after the last row kept. */
  page<Selected extends Row>(rows: Selected[], page: PageQuery): Page<Selected> {
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    const next = rows.length > page.limit && last !== undefined ? this.keyOf(last) : null;
    return { data, next_cursor: next ? encodeCursor([next[0].toISOString(), next[1]]) : null };
  }
}

import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { type DataSource, type EntityManager, QueryFailedError, type QueryRunner, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { ClosingDataSource } from './closing-data-source';

/**
 * A parameterised SQL statement or fragment, built with the `sql` tag: every interpolated value
 * becomes a `$n` parameter, a nested `Sql` is spliced in with its own parameters renumbered.
 * Values never become SQL text; only `sql.raw` (for fixed column lists and identifiers written in
 * the code) does.
 */
export class Sql {
  constructor(
    private readonly strings: readonly string[],
    private readonly values: readonly unknown[],
  ) {}

  /** The text with `$1…$n` and the values in that order, as `pg` takes them. */
  compile(): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    return { text: this.render(values), values };
  }

  private render(values: unknown[]): string {
    let text = this.strings[0];
    this.values.forEach((value, i) => {
      text += (value instanceof Sql ? value.render(values) : `$${values.push(value)}`) + this.strings[i + 1];
    });
    return text;
  }
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql(strings, values);
}

/** Trusted SQL text written in the code (a column list, an ORDER BY): never a value from a request. */
sql.raw = (text: string): Sql => new Sql([text], []);

/** The fragments joined by `separator` (e.g. ' AND '); empty when there are none. */
sql.join = (fragments: Sql[], separator: string): Sql =>
  fragments.length === 0 ? sql.raw('') : new Sql(['', ...fragments.slice(1).map(() => separator), ''], fragments);

/**
 * `alias.column AS alias__column` for each column: the rows of two tables read by one statement
 * (a join), told apart again by `readPrefixed`.
 */
export function prefixedColumns(alias: string, columns: readonly string[]): Sql {
  return sql.raw(columns.map((column) => `${alias}.${column} AS ${alias}__${column}`).join(', '));
}

/** The row of one table out of a statement's row that `prefixedColumns(alias, columns)` selected. */
export function readPrefixed<Row>(row: Record<string, unknown>, alias: string, columns: readonly string[]): Row {
  return Object.fromEntries(columns.map((column) => [column, row[`${alias}__${column}`]])) as Row;
}

/** `WHERE a AND b …`, or nothing when there is no condition. */
sql.where = (conditions: Sql[]): Sql => (conditions.length === 0 ? sql.raw('') : sql`WHERE ${sql.join(conditions, ' AND ')}`);

/**
 * Where statements run: the data source's manager (autocommit) or a transaction's manager. The
 * repositories take it as their first argument whenever a caller's transaction must include them.
 */
export type Db = EntityManager;

/**
 * Runs a statement and answers its rows: the same shape for SELECT and for INSERT, UPDATE and
 * DELETE with RETURNING (TypeORM's own `query` answers `[rows, count]` for UPDATE and DELETE).
 */
export async function query<Row>(db: Db, statement: Sql, options: RunOptions = {}): Promise<Row[]> {
  return (await run<Row>(db, statement, options)).rows;
}

/** How `query` runs a statement. */
export interface RunOptions {
  /**
   * Each connection keeps the statement's plan: it runs as a prepared statement named by its text
   * (keptPlanName), which PostgreSQL parses once per connection and, after five runs, plans no
   * more if the plan made without the values costs no more than those made with them did on
   * average. Only for a statement whose best plan is the same whatever its values: the message
   * search's walks (MessageRepository.searchPlan), the conversation lists that walk an index for a
   * page and the counts (ConversationRepository.keepsListPlan, counts). On the embedded engine,
   * whose connections share one session, it runs as any other statement.
   */
  keepPlan?: boolean;
}

/** The name of the prepared statement that keeps the plan of `text` on each connection (RunOptions.keepPlan). */
export function keptPlanName(text: string): string {
  return `kept_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/** The first row, or null. */
export async function queryOne<Row>(db: Db, statement: Sql): Promise<Row | null> {
  return (await run<Row>(db, statement)).rows[0] ?? null;
}

/** Runs a statement for its effect; answers how many rows it touched. */
export async function execute(db: Db, statement: Sql): Promise<number> {
  return (await run(db, statement)).affected;
}

/** Told the duration of every statement run here, in seconds (the metrics' database query time). */
let statementObserver: ((seconds: number) => void) | null = null;

/** Sets the one observer of statement durations (Metrics sets it; null removes it). */
export function observeStatements(observer: ((seconds: number) => void) | null): void {
  statementObserver = observer;
}

/**
 * What a watch is told of: `due`, rows inserted or made due now (work to hand on at once);
 * `rescheduled`, rows given another due time (a retry's, a campaign's next step), which the relay
 * must read to know when to look again.
 */
export type WatchedWrite = 'due' | 'rescheduled';

/** Tables whose writes of one kind someone waits for after the commit; and who. */
interface WriteWatch {
  tables: ReadonlySet<string>;
  on: WatchedWrite;
  onCommit: () => void;
}

const watches = new WeakMap<DataSource, WriteWatch[]>();
/** Of each open transaction (its runner) that wrote to a watched table, whom to tell when it commits. */
const toTellOnCommit = new WeakMap<QueryRunner, Set<() => void>>();
/** `INSERT INTO t` or `UPDATE t`: the statement's verb and table. */
const WRITE = /^\s*(INSERT\s+INTO|UPDATE)\s+([a-z_]+)/i;
/** An UPDATE that makes recorded work due now (not `now() + …`, a lease or a retry's delay). */
const MADE_DUE_NOW = /next_attempt_at\s*=\s*now\(\)(?!\s*\+)/i;
/** An UPDATE that gives recorded work a due time of its own (a parameter): neither now, nor a lease (`now() + …`), nor none. */
const RESCHEDULED = /next_attempt_at\s*=\s*(?!\s|now\(\)|null\b)/i;

/**
 * Calls `onCommit` after each commit that inserted rows into one of `tables`, or made rows of one
 * due now (`on: 'due'`), or gave rows of one a due time of their own (`on: 'rescheduled'`): at
 * once for a statement on its own, when its transaction commits for one inside a transaction
 * (Database.transaction asks `takeWatchedWrites`), never for one rolled back, once per commit
 * however many statements. This is how the relay is woken by the commits that record work or
 * events, whoever wrote them. Answers the function that ends the watch.
 */
export function watchWrites(dataSource: DataSource, tables: Iterable<string>, onCommit: () => void, on: WatchedWrite = 'due'): () => void {
  const watch: WriteWatch = { tables: new Set(tables), on, onCommit };
  watches.set(dataSource, [...(watches.get(dataSource) ?? []), watch]);
  return () =>
    watches.set(
      dataSource,
      (watches.get(dataSource) ?? []).filter((other) => other !== watch),
    );
}

/** Whom to tell now that the transaction of `db` committed (forgotten once asked). */
export function takeWatchedWrites(db: Db): (() => void)[] {
  const toTell = db.queryRunner && toTellOnCommit.get(db.queryRunner);
  if (!toTell) return [];
  toTellOnCommit.delete(db.queryRunner!);
  return [...toTell];
}

/** What a statement that changed rows may tell a watch: its kind and table, or null for a write no watch is told of. */
export function watchedWriteOf(text: string): { kind: WatchedWrite; table: string } | null {
  const write = WRITE.exec(text);
  if (!write) return null;
  const update = write[1].toUpperCase() === 'UPDATE';
  const kind = !update || MADE_DUE_NOW.test(text) ? 'due' : RESCHEDULED.test(text) ? 'rescheduled' : null;
  return kind === null ? null : { kind, table: write[2].toLowerCase() };
}

/** After a statement that changed rows: the watches of its data source that it concerns are told, or will be at the commit. */
function noteWrite(db: Db, text: string): void {
  const watching = watches.get(db.connection);
  const write = watching && watchedWriteOf(text);
  if (!write) return;
  const { kind, table } = write;
  for (const watch of watching) {
    if (watch.on !== kind || !watch.tables.has(table)) continue;
    const runner = db.queryRunner;
    if (!runner?.isTransactionActive) {
      watch.onCommit();
      continue;
    }
    let toTell = toTellOnCommit.get(runner);
    if (!toTell) toTellOnCommit.set(runner, (toTell = new Set()));
    toTell.add(watch.onCommit);
  }
}

async function run<Row>(db: Db, statement: Sql, options: RunOptions = {}): Promise<{ rows: Row[]; affected: number }> {
  const { text, values } = statement.compile();
  // A transaction's manager has its runner; the root manager borrows one from the pool, as its `query` does.
  const runner = db.queryRunner ?? db.connection.createQueryRunner();
  const started = performance.now();
  try {
    const keepPlan = options.keepPlan === true && db.connection instanceof ClosingDataSource && db.connection.keepsPlans;
    const result = keepPlan ? await runKeepingPlan(runner, text, values) : await runner.query(text, values, true);
    const rows = (result.records ?? []) as Row[];
    const affected = result.affected ?? 0;
    if (affected > 0) noteWrite(db, text);
    return { rows, affected };
  } finally {
    statementObserver?.((performance.now() - started) / 1000);
    if (!db.queryRunner) await runner.release();
  }
}

/**
 * What PostgreSQL answers when it does not hold a connection's prepared statement as `pg` believes
 * it does: 26000, none of that name (`DISCARD ALL`, or a pooler that handed the client another
 * server connection); 42P05, one of that name already (prepared there by another of the pooler's clients).
 */
const LOST_STATEMENT_CODES = new Set(['26000', '42P05']);
/** The connections on which the server lost a statement: statements that keep their plan run unnamed there. */
const losingConnections = new WeakSet<PoolClient>();
const logger = new Logger('Database');
let toldOfLostStatement = false;

/**
 * A named prepared statement on the runner's connection (TypeORM's `query` has no name to give;
 * `pg` parses it on a connection the first time only). Its failure is TypeORM's, as `query`'s is.
 * `pg` never prepares a statement again on a connection where it did once: where the server lost
 * one (LOST_STATEMENT_CODES), outside a transaction, which that error has not aborted, the
 * statement runs again unnamed, as does every statement that keeps its plan on that connection
 * from then on (planned each time), and the log says once why (docs/operations.md: the pooler
 * must keep prepared statements).
 */
async function runKeepingPlan(runner: QueryRunner, text: string, values: unknown[]): Promise<{ records: unknown[]; affected: number }> {
  // As TypeORM's `query` refuses: a released runner's connection may be another caller's by now.
  if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
  const client = (await runner.connect()) as PoolClient;
  try {
    const result = losingConnections.has(client)
      ? await client.query({ text, values })
      : await client.query({ name: keptPlanName(text), text, values }).catch(async (error: unknown) => {
          if (!LOST_STATEMENT_CODES.has((error as { code?: string }).code ?? '') || runner.isTransactionActive) throw error;
          losingConnections.add(client);
          if (!toldOfLostStatement) {
            toldOfLostStatement = true;
            logger.warn(
              'PostgreSQL lost a statement prepared on a connection (a pooler in transaction mode, or DISCARD ALL): there, statements that keep their plan run planned each time (docs/operations.md)',
            );
          }
          return client.query({ text, values });
        });
    return { records: result.rows, affected: result.rowCount ?? 0 };
  } catch (error) {
    throw new QueryFailedError(text, values, error as Error);
  }
}

import type { EntityManager } from 'typeorm';

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
export async function query<Row>(db: Db, statement: Sql): Promise<Row[]> {
  return (await run<Row>(db, statement)).rows;
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

async function run<Row>(db: Db, statement: Sql): Promise<{ rows: Row[]; affected: number }> {
  const { text, values } = statement.compile();
  // A transaction's manager has its runner; the root manager borrows one from the pool, as its `query` does.
  const runner = db.queryRunner ?? db.connection.createQueryRunner();
  const started = performance.now();
  try {
    const result = await runner.query(text, values, true);
    return { rows: (result.records ?? []) as Row[], affected: result.affected ?? 0 };
  } finally {
    statementObserver?.((performance.now() - started) / 1000);
    if (!db.queryRunner) await runner.release();
  }
}

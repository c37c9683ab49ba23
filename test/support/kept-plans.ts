import { type Db, keptPlanName, query, type Sql, sql } from '../../src/database/sql';

/**
 * How often the connection of `db` planned the statement with its values (custom) and ran the plan
 * it keeps without them (generic), as PostgreSQL (14 or newer) counts them: empty when the
 * connection has not prepared it.
 */
export function plansOf(db: Db, statement: Sql): Promise<{ generic_plans: string; custom_plans: string }[]> {
  return query(db, sql`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = ${statement.compile().text}`);
}

/**
 * The plan the connection of `db` would run the statement with now (its kept one, once chosen), as
 * EXPLAIN EXECUTE shows it. EXECUTE takes its values written in: only values of a test's own making
 * (uuids, words, arrays of them).
 */
export async function explainKept(db: Db, statement: Sql): Promise<string> {
  const { text, values } = statement.compile();
  const written = values.map((value) => (Array.isArray(value) ? `'{${value.join(',')}}'` : `'${String(value)}'`)).join(', ');
  const plan = await query<Record<string, string>>(db, sql.raw(`EXPLAIN EXECUTE ${keptPlanName(text)} (${written})`));
  return plan.map((row) => Object.values(row)[0]).join('\n');
}

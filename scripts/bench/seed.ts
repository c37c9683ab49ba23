import { withClient } from './database';
import { SEED, type SeedSize, seedStatements, SEEDED_TABLES } from './seed-sql';

/**
 * What the bench database holds, decided before writing anything to it: the bench writes a
 * million rows, so it must only ever write to a database that is new or that it seeded itself.
 */
export type DatabaseState =
  /** No tables, or tables without a single row: the service has to start once (migrations, admin). */
  | { kind: 'new' }
  /** Migrated, holding only the bench admin: ready to seed. */
  | { kind: 'empty' }
  | { kind: 'seeded'; contacts: number; conversations: number; messages: number }
  | { kind: 'foreign'; reason: string };

export async function inspectDatabase(databaseUrl: string, adminEmail: string, size: SeedSize): Promise<DatabaseState> {
  return withClient(databaseUrl, async (client) => {
    const tables = await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    const names = new Set(tables.rows.map((row) => row.name));
    if (!names.has('messages')) {
      return names.size === 0
        ? { kind: 'new' }
        : { kind: 'foreign', reason: `it has tables (${[...names].slice(0, 5).join(', ')}) but not Team Inbox's` };
    }
    const { rows } = await client.query<{
      users: number;
      admin: number;
      agents: number;
      contacts: number;
      conversations: number;
      messages: number;
    }>(
      `SELECT (SELECT count(*) FROM users)::int AS users,
              (SELECT count(*) FROM users WHERE email = $1)::int AS admin,
              (SELECT count(*) FROM users WHERE email LIKE $2)::int AS agents,
              (SELECT count(*) FROM contacts)::int AS contacts,
              (SELECT count(*) FROM conversations)::int AS conversations,
              (SELECT count(*) FROM messages)::int AS messages`,
      [adminEmail, `${SEED.agentEmailPrefix}%`],
    );
    const counts = rows[0];
    // The service creates the bench admin only on a database without users; any other user means
    // someone else's data (and a failed login later).
    if (counts.users > counts.admin + counts.agents)
      return { kind: 'foreign', reason: `it has ${counts.users - counts.admin - counts.agents} users that are not the bench's` };
    // The ingest section adds messages (from seeded customers only), the fan-out section contacts
    // (without conversations), nothing else.
    if (
      counts.agents === SEED.agents &&
      counts.contacts >= size.contacts &&
      counts.conversations === size.conversations &&
      counts.messages >= size.messages
    ) {
      return { kind: 'seeded', contacts: counts.contacts, conversations: counts.conversations, messages: counts.messages };
    }
    if (counts.agents === 0 && counts.contacts === 0 && counts.conversations === 0 && counts.messages === 0) {
      return counts.users === 0 ? { kind: 'new' } : { kind: 'empty' };
    }
    return {
      kind: 'foreign',
      reason: `it holds ${counts.contacts} contacts, ${counts.conversations} conversations and ${counts.messages} messages, but not as this bench seeds its ${size.name} size`,
    };
  });
}

export interface SeedTimes {
  insertSeconds: number;
  vacuumSeconds: number;
}

/**
 * Seeds a migrated, empty database with `size` in one transaction: an interrupted seed leaves it empty, never
 * half-seeded (which the next run could neither reuse nor tell apart from someone's data). Then
 * VACUUM (ANALYZE): the planner gets statistics for the new sizes, and autovacuum, which a million
 * fresh rows would otherwise wake up, does not run during the measurements and skew them.
 */
export async function seedDatabase(databaseUrl: string, size: SeedSize, progress: (line: string) => void): Promise<SeedTimes> {
  return withClient(databaseUrl, async (client) => {
    const started = performance.now();
    await client.query('BEGIN');
    try {
      for (const { label, sql } of seedStatements(size)) {
        const statementStarted = performance.now();
        await client.query(sql);
        progress(`  ${label}: ${seconds(statementStarted).toFixed(1)} s`);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    const insertSeconds = seconds(started);
    const vacuumStarted = performance.now();
    await client.query(`VACUUM (ANALYZE) ${SEEDED_TABLES.join(', ')}`);
    return { insertSeconds, vacuumSeconds: seconds(vacuumStarted) };
  });
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import {
  MIGRATED_TEMPLATE_DATABASE,
  PGLITE_MIGRATED_TEMPLATE_DIR,
  PGLITE_TEMPLATE_DIR,
  RUN_PREFIX,
  TEST_DATABASE_URL,
} from './environment';

/** A fresh database for one test file (or one group of app instances), dropped after. */
export interface TestDatabase {
  /** The settings that point an app at this database. */
  env: Record<string, string>;
  /** Runs SQL as an outside client (PostgreSQL only; PGlite has one owner, the app). */
  query<T extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Takes the database away from its clients: new connections refused, open ones ended (PostgreSQL only). */
  goDown(): Promise<void>;
  /** Accepts connections again after goDown (PostgreSQL only). */
  comeBack(): Promise<void>;
  drop(): Promise<void>;
}

/**
 * Every migration is applied already (a copy of the run's template, made once by the global
 * setup: migrating each file's database again cost about a second of CPU on PGlite), unless
 * `empty`: the tests of migrating itself.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const empty = options.empty ?? false;
  return TEST_DATABASE_URL ? createPostgresDatabase(TEST_DATABASE_URL, empty) : createPgliteDirectory(empty);
}

async function createPostgresDatabase(serverUrl: string, empty: boolean): Promise<TestDatabase> {
  const name = `${RUN_PREFIX}_${randomBytes(4).toString('hex')}`;
  await withClient(serverUrl, (client) =>
    client.query(`CREATE DATABASE "${name}"${empty ? '' : ` TEMPLATE "${MIGRATED_TEMPLATE_DATABASE}"`}`),
  );
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  // Its own data directory too: the default, ./data, is the checkout's, which a developer's `npm start` writes.
  const dataDir = mkdtempSync(join(tmpdir(), 'team-inbox-test-data-'));
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
    query: <T extends object>(sql: string, params?: unknown[]) =>
      withClient(url.toString(), async (client) => (await client.query(sql, params)).rows as T[]),
    goDown: () =>
      withClient(serverUrl, async (client) => {
        await client.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      }),
    comeBack: () =>
      withClient(serverUrl, (client) => client.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`)).then(() => undefined),
    drop: async () => {
      await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function createPgliteDirectory(empty: boolean): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'team-inbox-test-'));
  cpSync(empty ? PGLITE_TEMPLATE_DIR : PGLITE_MIGRATED_TEMPLATE_DIR, dir, { recursive: true });
  return Promise.resolve({
    env: { DATA_DIR: dir },
    query: () => Promise.reject(new Error('PGlite is only reachable through the app (use app.get(DataSource))')),
    goDown: () => Promise.reject(new Error('PGlite has no server to take down')),
    comeBack: () => Promise.reject(new Error('PGlite has no server to take down')),
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  });
}

async function withClient<T>(connectionString: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

import { Client, type ClientConfig } from 'pg';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';

/**
 * One short-lived connection to the bench database for the bench's own queries (inspection,
 * seeding, counting), named so it is recognisable in pg_stat_activity next to the service's pool.
 */
export async function withClient<T>(database: string | ClientConfig, work: (client: Client) => Promise<T>): Promise<T> {
  const config = typeof database === 'string' ? { connectionString: database } : database;
  const client = new Client({ ...config, application_name: 'team-inbox-bench' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** How many of `wamids` are stored as a message's channel id. */
export async function countStoredWamids(database: string | ClientConfig, wamids: string[]): Promise<number> {
  return withClient(database, async (client) => {
    const { rows } = await client.query<{ stored: number }>(
      'SELECT count(*)::int AS stored FROM messages WHERE channel_message_id = ANY($1::text[])',
      [wamids],
    );
    return rows[0].stored;
  });
}

/**
 * How many of `wamids` the embedded engine in `dataDir` stored, once the service has stopped (a
 * data directory serves one process at a time): opened as the service opens it.
 */
export async function countStoredWamidsEmbedded(dataDir: string, wamids: string[]): Promise<number> {
  const embedded = await EmbeddedPostgres.start(dataDir, 1);
  try {
    const { host, port, username, database } = embedded.connectionOptions;
    return await countStoredWamids({ host, port, user: username, database }, wamids);
  } finally {
    await embedded.stop();
  }
}

/**
 * The database named after the one at `databaseUrl` with `suffix` (`ti_bench` -> `ti_bench_tenth`),
 * on the same server: its name, its URL, and the name of the one it is named after.
 */
function databaseBeside(databaseUrl: string, suffix: string): { url: string; name: string; base: string } {
  const url = new URL(databaseUrl);
  const base = decodeURIComponent(url.pathname.slice(1));
  const name = `${base}_${suffix}`;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`cannot name a database after "${base}": use letters, digits and _`);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, base };
}

/**
 * The URL of a database beside `databaseUrl` on the same server, named after it with `suffix`
 * (`ti_bench` -> `ti_bench_tenth`), created when missing. Answers whether it was created.
 */
export async function siblingDatabase(databaseUrl: string, suffix: string): Promise<{ url: string; name: string; created: boolean }> {
  const { url, name } = databaseBeside(databaseUrl, suffix);
  const created = await withClient(databaseUrl, async (client) => {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rows.length > 0) return false;
    await client.query(`CREATE DATABASE "${name}"`);
    return true;
  });
  return { url, name, created };
}

/** Marks the copies the bench makes: only a database with this comment is dropped to be made again. */
const BENCH_COPY_COMMENT = 'team-inbox bench copy: dropped and made again by npm run bench';

/**
 * A copy of the database at `databaseUrl`, named after it with `suffix`, file by file where the
 * server can (PostgreSQL 15+): identical rows in identical pages. A copy left by an earlier run is
 * made again; a database of that name that the bench did not make is an error, never dropped.
 * Nothing may be connected to the source meanwhile, and the URL's user must own it (or be a
 * superuser) and may create databases; the statements run from the server's `postgres` database.
 */
export async function copyOfDatabase(databaseUrl: string, suffix: string): Promise<{ url: string; name: string }> {
  const { url, name, base: source } = databaseBeside(databaseUrl, suffix);
  // A copy's source may have no connection open, this one's included.
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  await withClient(maintenance.toString(), async (client) => {
    const { rows: existing } = await client.query<{ comment: string | null }>(
      `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
      [name],
    );
    if (existing.length > 0) {
      if (existing[0].comment !== BENCH_COPY_COMMENT)
        throw new Error(`database ${name} exists and is not a copy the bench made: drop or rename it`);
      await client.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    }
    const { rows } = await client.query<{ version: number }>(`SELECT current_setting('server_version_num')::int AS version`);
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${source}"${rows[0].version >= 150_000 ? ' STRATEGY = FILE_COPY' : ''}`);
    await client.query(`COMMENT ON DATABASE "${name}" IS '${BENCH_COPY_COMMENT}'`);
  });
  return { url, name };
}

/** Drops a database the bench made, from a connection to another one on the same server. */
export async function dropDatabase(viaUrl: string, name: string): Promise<void> {
  await withClient(viaUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

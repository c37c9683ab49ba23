import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';

/** Removes whatever a crashed test file left behind: databases and keys named after this run. */
export default async function globalTeardown(): Promise<void> {
  const runPrefix = `ti_test_${process.env.TEST_RUN_ID}`;
  for (const dir of [process.env.TEST_PGLITE_TEMPLATE_DIR, process.env.TEST_PGLITE_MIGRATED_TEMPLATE_DIR]) {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  // The fast tier's PGlite directories, one per worker (test/support/service-tier.ts).
  for (const name of readdirSync(tmpdir())) {
    if (name.startsWith(`team-inbox-${process.env.TEST_RUN_ID}-worker_`)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  if (process.env.TEST_DATABASE_URL) {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${runPrefix}%`]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await client.end();
  }
  if (process.env.TEST_REDIS_URL) {
    const redis = new Redis(process.env.TEST_REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${runPrefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
  }
}

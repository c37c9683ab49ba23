import { PGlite } from '@electric-sql/pglite';
import { cpSync, mkdtempSync } from 'node:fs';
import { Client } from 'pg';
import { loadConfig } from '../../src/config/app-config';
import { migrateOnly } from '../../src/database/database.module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { CHROMIUM_PATH, HAS_CHROMIUM } from './chromium';

/**
 * Runs once per jest run. Gives the run an id (database and key names carry it) and makes the
 * databases every test file copies, migrated once here: on the embedded engine an initialised
 * PGlite data directory and a migrated copy of it (initdb takes seconds, migrating about one, a
 * copy milliseconds); on PostgreSQL a migrated template database (CREATE DATABASE … TEMPLATE).
 */
export default async function globalSetup(): Promise<void> {
  process.env.TEST_RUN_ID = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const database = process.env.TEST_DATABASE_URL
    ? `PostgreSQL (${redact(process.env.TEST_DATABASE_URL)}), a fresh database per test file`
    : 'embedded PGlite';
  const redis = process.env.TEST_REDIS_URL
    ? `Redis (${redact(process.env.TEST_REDIS_URL)}), a fresh key prefix per test file`
    : 'in-process queue and rate limits';
  process.stdout.write(`\nTests run on ${database}, with ${redis}.\n`);
  if (!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL) {
    process.stdout.write(
      'Specs that need TEST_DATABASE_URL and TEST_REDIS_URL (several instances sharing one database and Redis) are skipped.\n',
    );
  }
  // The console the service serves at /, built from the current sources (Vite takes about a second).
  const build = spawnSync(
    process.execPath,
    [
      join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js'),
      'build',
      '--config',
      'console/vite.config.mts',
      '--logLevel',
      'error',
    ],
    {
      cwd: join(__dirname, '..', '..'),
      encoding: 'utf8',
    },
  );
  if (build.status !== 0) throw new Error(`Building the console failed:\n${build.stdout}${build.stderr}`);
  if (!HAS_CHROMIUM) {
    process.stdout.write(
      `The browser tests of the console are skipped: there is no Chromium at ${CHROMIUM_PATH} (apt-get install chromium).\n`,
    );
  }
  if (!process.env.TEST_DATABASE_URL) {
    const dir = mkdtempSync(join(tmpdir(), 'team-inbox-pglite-template-'));
    const db = await PGlite.create(join(dir, 'pgdata'));
    await db.close();
    process.env.TEST_PGLITE_TEMPLATE_DIR = dir;
    const migrated = mkdtempSync(join(tmpdir(), 'team-inbox-pglite-migrated-'));
    cpSync(dir, migrated, { recursive: true });
    await migrate({ DATA_DIR: migrated });
    process.env.TEST_PGLITE_MIGRATED_TEMPLATE_DIR = migrated;
  } else {
    const template = `ti_test_${process.env.TEST_RUN_ID}_template`;
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${template}"`);
    } finally {
      await client.end();
    }
    const url = new URL(process.env.TEST_DATABASE_URL);
    url.pathname = `/${template}`;
    await migrate({ DATABASE_URL: url.toString() });
  }
}

/** Applies every migration to the database these settings name, as `npm run migrate` does. */
async function migrate(env: Record<string, string>): Promise<void> {
  await migrateOnly(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env }, () => 'a-session-secret-for-the-global-setup-only'));
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

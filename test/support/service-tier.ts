import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { AppModule } from '../../src/app.module';
import { loadConfig } from '../../src/config/app-config';
import { TEST_ENCRYPTION_KEY } from './test-app';
import { MIGRATED_TEMPLATE_DATABASE, PGLITE_MIGRATED_TEMPLATE_DIR, RUN_PREFIX, TEST_DATABASE_URL, TEST_RUN_ID } from './environment';

/**
 * The fast tier: the application's services and repositories without HTTP, for rules, on one
 * database per jest worker that every file the worker runs shares (made from the run's migrated
 * template on first use, removed by the global teardown). No app is built per test and nothing is
 * migrated, so a rule costs its own statements. Tests here write rows under names of their own
 * and never assume the database empty; the contract (routes, status codes, bodies) stays in the
 * HTTP tier (test/*.e2e.spec.ts).
 */
export interface ServiceTier {
  get<T>(type: new (...args: never[]) => T): T;
  close(): Promise<void>;
}

/** The directory or database of this worker, shared by the files it runs. */
const WORKER_DATABASE_SUFFIX = `worker_${process.env.JEST_WORKER_ID ?? '1'}`;

export async function startServiceTier(): Promise<ServiceTier> {
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    SESSION_SECRET: 'test-session-secret-that-is-long-enough',
    // Given, so no development key file is written.
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PASSWORD_HASH_COST: '10',
    ...(await workerDatabase()),
  };
  const config = loadConfig(env, () => 'unused-because-session-secret-is-set');
  const context: INestApplicationContext = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: false });
  await context.init();
  return { get: (type) => context.get(type), close: () => context.close() };
}

async function workerDatabase(): Promise<Record<string, string>> {
  // The worker's own data directory on either engine (removed by the global teardown): the
  // default, ./data, is the checkout's, where the first-run admin's password file would land.
  const dir = join(tmpdir(), `team-inbox-${TEST_RUN_ID}-${WORKER_DATABASE_SUFFIX}`);
  if (!TEST_DATABASE_URL) {
    if (!existsSync(dir)) cpSync(PGLITE_MIGRATED_TEMPLATE_DIR, dir, { recursive: true });
    return { DATA_DIR: dir };
  }
  const name = `${RUN_PREFIX}_${WORKER_DATABASE_SUFFIX}`;
  const client = new Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name}" TEMPLATE "${MIGRATED_TEMPLATE_DATABASE}"`);
  } finally {
    await client.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  mkdirSync(dir, { recursive: true });
  return { DATABASE_URL: url.toString(), DATA_DIR: dir };
}

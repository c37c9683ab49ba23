import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignedUrls } from '../src/auth/signed-urls';
import { SecretBox } from '../src/config/secret-box';
import { describeWithPostgresAndRedis, TEST_DATABASE_URL } from './support/environment';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { startTestApp, TestApp } from './support/test-app';

/** A development start: neither SESSION_SECRET nor ENCRYPTION_KEY set. */
const UNSET = { SESSION_SECRET: '', ENCRYPTION_KEY: '' };
const UNKNOWN_MEDIA = `/api/v1/media/med_${'0'.repeat(32)}`;

describe('the secrets of a development start', () => {
  let database: TestDatabase;
  let dataDir: string;
  /** The embedded engine keeps them beside its database; on PostgreSQL, DATA_DIR is one of the test's and the database holds them. */
  const env = () => ({ ...UNSET, ...(TEST_DATABASE_URL ? { DATA_DIR: dataDir } : {}) });
  beforeEach(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'team-inbox-dev-secrets-'));
  });
  afterEach(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('survive a restart: the console stays logged in and a media link signed before it still opens', async () => {
    const before = await startTestApp({ database, env: env() });
    const token = await before.adminToken();
    const signed = before.app.get(SignedUrls).sign(UNKNOWN_MEDIA, 60_000);
    await before.close();

    const after = await startTestApp({ database, env: env() });
    try {
      expect((await after.request('GET', '/api/v1/me', { token })).status).toBe(200);
      // The signature is good: the answer is about the media (unknown here), not the link.
      const opened = await after.request('GET', signed);
      expect(opened.status).toBe(404);
    } finally {
      await after.close();
    }
  });

  it('tells a link signed with another key to reload, as an expired one, never "invalid"', async () => {
    const other = await startTestApp({ env: { SESSION_SECRET: 'another-session-secret-that-is-long-enough' } });
    const signed = other.app.get(SignedUrls).sign(UNKNOWN_MEDIA, 60_000);
    await other.close();
    const t = await startTestApp({ database, env: env() });
    try {
      const answer = await t.request('GET', signed);
      expect(answer.status).toBe(401);
      expect((answer.body as { error: string }).error).toBe(
        'This signed URL has expired or was signed with an earlier key; reload the page for a fresh one',
      );
    } finally {
      await t.close();
    }
  });
});

describeWithPostgresAndRedis('the secrets of development instances on one PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  const dirs: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    // Each instance its own DATA_DIR, as on two machines: only the database is shared.
    const start = () => {
      const dir = mkdtempSync(join(tmpdir(), 'team-inbox-dev-secrets-'));
      dirs.push(dir);
      return startTestApp({ database, env: { ...UNSET, DATA_DIR: dir } });
    };
    [a, b] = await Promise.all([start(), start()]);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('share them through the database: a token of one works on the other, and each reads the webhook secrets the other sealed', async () => {
    const token = await a.adminToken();
    expect((await b.request('GET', '/api/v1/me', { token })).status).toBe(200);
    const sealed = a.app.get(SecretBox).seal('whsec-of-instance-a');
    expect(b.app.get(SecretBox).open(sealed)).toBe('whsec-of-instance-a');
    expect(await database.query('SELECT name FROM development_secrets ORDER BY name')).toEqual([
      { name: 'encryption_key' },
      { name: 'session_secret' },
    ]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_DATABASE_URL } from '../support/environment';
import { freePort } from '../support/redis-server';
import { ServiceProcess } from '../support/service-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * The built service's life as a newcomer's terminal and an orchestrator see it: the first start's
 * log, a stop by signal to the whole process group (`npm start` under Ctrl-C or Kubernetes), and a
 * start that cannot have its database.
 */
describe('starting and stopping the built service', () => {
  let dataDir: string;
  let database: TestDatabase | null = null;
  const running: ServiceProcess[] = [];
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'team-inbox-lifecycle-'));
    database = TEST_DATABASE_URL ? await createTestDatabase() : null;
  });
  afterEach(async () => {
    for (const service of running.splice(0)) await service.kill();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A development start on this test's data: no admin, secrets or channel configured. */
  async function service(env: Record<string, string> = {}, options: { npmStart?: boolean } = {}): Promise<ServiceProcess> {
    const started = new ServiceProcess({ ...(database?.env ?? {}), DATA_DIR: dataDir, ...env }, await freePort(), options);
    running.push(started);
    return started;
  }

  it('prints readable lines at LOG_FORMAT=pretty, the routes left to debug, and a banner that says where to log in', async () => {
    const first = await service({ LOG_FORMAT: 'pretty' });
    await first.start();
    await first.stop();
    expect(first.log).toContain('First start: log in to the console');
    expect(first.log).toContain(`    http://127.0.0.1:${first.port}/`);
    expect(first.log).toMatch(/ {4}as admin@localhost with the password [\w-]{16}\n/);
    expect(first.log).toContain(`(kept in ${join(dataDir, 'admin-password.txt')} until you change it`);
    expect(first.log).not.toMatch(/Mapped \{/);
    expect(first.log).not.toMatch(/^\{"level"/m);
  });

  it('writes one JSON object per line when the output is not a terminal, the routes left to debug', async () => {
    const first = await service();
    await first.start();
    await first.stop();
    const lines = first.log.trim().split('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(lines.some((line) => (JSON.parse(line) as { msg: string }).msg.startsWith('First start: log in to the console'))).toBe(true);
    expect(first.log).not.toMatch(/Mapped \{/);
  });

  it('drains on SIGTERM to the process group of npm start: it says so, leaves, and the next start warns of nothing left behind', async () => {
    const first = await service({}, { npmStart: true });
    await first.start();
    await first.signalGroup('SIGTERM');
    expect(first.log).toContain('SIGTERM: stopping. No new request or work is taken');
    expect(first.log).toContain('Left the instances on this database');

    const second = await service();
    await second.start();
    await second.stop();
    expect(second.log).toContain('Left the instances on this database');
    expect(second.log).not.toContain('stopped without leaving');
  });

  // The embedded engine is one process by construction, so at start every other instance is gone; on
  // PostgreSQL an instance counts as gone only once its heartbeats have stopped for 8 s.
  const onTheEmbeddedEngine = TEST_DATABASE_URL ? it.skip : it;

  onTheEmbeddedEngine('warns of an instance killed without leaving, the case the drain avoids', async () => {
    const first = await service();
    await first.start();
    await first.kill();
    const second = await service();
    await second.start();
    await second.stop();
    expect(second.log).toContain('1 instance(s) stopped without leaving');
  });

  onTheEmbeddedEngine('refuses at once, saying why, a second instance on a DATA_DIR in use', async () => {
    const first = await service();
    await first.start();
    const second = await service();
    const started = Date.now();
    expect(await second.startRefused()).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(second.log).toContain(`Not started: DATA_DIR ${dataDir} is in use by process`);
    expect(second.log).not.toContain('Retrying (2)');
  });

  it('refuses at once, saying why, a start whose DATABASE_URL cannot be reached', async () => {
    const port = await freePort();
    const unreachable = await service({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/nothing` });
    expect(await unreachable.startRefused()).toBe(1);
    expect(unreachable.log).toContain(
      `Not started: the database at 127.0.0.1:${port} (DATABASE_URL) cannot be reached: connect ECONNREFUSED`,
    );
  });
});

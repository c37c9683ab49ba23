import { describeWithPostgres, TEST_REDIS_URL } from './support/environment';
import { startTestApp, TestApp } from './support/test-app';

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers /api/health with 200 without credentials', async () => {
    const answer = await t.request('GET', '/api/health');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok' });
  });

  it('answers /api/health/db with 200 after a real query', async () => {
    const answer = await t.request('GET', '/api/health/db');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok' });
  });

  const redisState = TEST_REDIS_URL ? 'up' : 'off';

  it(`answers /api/health/redis with 200 and redis "${redisState}" on this engine`, async () => {
    const answer = await t.request('GET', '/api/health/redis');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok', redis: redisState });
  });

  it('answers /api/health/ready with the database up and the state of Redis', async () => {
    const answer = await t.request('GET', '/api/health/ready');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok', database: 'up', redis: redisState });
  });
});

describeWithPostgres('database health when PostgreSQL refuses connections (needs TEST_DATABASE_URL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.database.comeBack();
    await t.close();
  });

  it('answers /api/health/db with 503 and {error} while the database is unreachable, and 200 again after', async () => {
    await t.database.goDown();
    const down = await t.request('GET', '/api/health/db', { headers: { 'x-request-id': 'db-down-1' } });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: 'Database is unreachable' });
    // Terminus logs the failure through Nest's Logger; the line still carries the request id.
    expect(t.logs.filter((line) => line.level === 50 && line.reqId === 'db-down-1')).not.toHaveLength(0);
    expect((await t.request('GET', '/api/health')).status).toBe(200);

    expect(await t.request('GET', '/api/health/ready')).toMatchObject({ status: 503, body: { error: 'Database is unreachable' } });

    await t.database.comeBack();
    expect((await t.request('GET', '/api/health/db')).status).toBe(200);
    expect((await t.request('GET', '/api/health/ready')).status).toBe(200);
  });
});

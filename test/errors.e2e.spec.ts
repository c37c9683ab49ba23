import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './support/test-app';

describe('error answers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers an unknown route with 404 and the error body alone', async () => {
    const answer = await t.request('GET', '/api/v1/nothing-here', { token: await t.adminToken() });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: expect.stringContaining('/api/v1/nothing-here') });
  });

  it('answers malformed JSON with 400', async () => {
    const answer = await t.request('POST', '/api/v1/auth/login', {
      payload: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Body is not valid JSON' });
  });

  it('answers a JSON body that is not an object with 400', async () => {
    const answer = await t.request('POST', '/api/v1/auth/login', { payload: '[1,2]', headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Body must be a JSON object' });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const payload = JSON.stringify({ email: 'a'.repeat(1024 * 1024), password: 'x' });
    const answer = await t.request('POST', '/api/v1/auth/login', { payload, headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: 'Body is larger than this endpoint accepts' });
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x']])(
    'answers a %s body with 415',
    async (contentType) => {
      const answer = await t.request('POST', '/api/v1/auth/login', {
        payload: 'email=a&password=b',
        headers: { 'content-type': contentType },
      });
      expect(answer.status).toBe(415);
      expect(answer.body).toEqual({ error: 'Content-Type must be application/json' });
    },
  );

  it('answers a failure inside with 500 "Internal server error" only, and logs it with the request id', async () => {
    const dataSource = t.app.get(DataSource);
    await dataSource.query('ALTER TABLE users RENAME TO users_away');
    try {
      const answer = await t.request('GET', '/api/v1/users', { token: await t.adminToken(), headers: { 'x-request-id': 'req-500-test' } });
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: 'Internal server error' });
      expect(answer.text).not.toMatch(/users|relation|select|stack/i);
      expect(answer.headers['x-request-id']).toBe('req-500-test');
      const logged = t.logs.find((line) => line.msg === 'request failed');
      expect(logged).toMatchObject({ level: 50, reqId: 'req-500-test', err: { message: expect.stringContaining('users') } });
    } finally {
      await dataSource.query('ALTER TABLE users_away RENAME TO users');
    }
  });
});

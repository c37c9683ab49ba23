import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describeWithPostgresAndRedis } from './support/environment';
import { startTestApp, startTwoInstances, TestApp } from './support/test-app';

describe('rate limiting per user', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_MAX_REQUESTS: '5', RATE_LIMIT_WINDOW_MS: '60000' } });
  });
  afterAll(() => t.close());

  it('counts every route together and answers the sixth request in the window with 429 and Retry-After', async () => {
    const agent = await t.createUser();
    const remaining: unknown[] = [];
    for (const url of ['/api/v1/me', '/api/v1/users', '/api/v1/me', '/api/v1/users', '/api/v1/me']) {
      const answer = await t.request('GET', url, { token: agent.token });
      expect(answer.status).toBe(200);
      expect(answer.headers['ratelimit-limit']).toBe('5');
      remaining.push(answer.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await t.request('GET', '/api/v1/me', { token: agent.token });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Too many requests; retry after the time given in Retry-After' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
  });

  it('keeps separate counts for separate users', async () => {
    const busy = await t.createUser();
    const quiet = await t.createUser();
    for (let i = 0; i < 6; i++) await t.request('GET', '/api/v1/me', { token: busy.token });
    expect((await t.request('GET', '/api/v1/me', { token: busy.token })).status).toBe(429);
    const answer = await t.request('GET', '/api/v1/me', { token: quiet.token });
    expect(answer.status).toBe(200);
    expect(answer.headers['ratelimit-remaining']).toBe('4');
  });

  it('counts requests without a valid token per IP, refused ones included', async () => {
    for (let i = 0; i < 5; i++) expect((await t.request('GET', '/api/v1/me', { ip: '203.0.113.7' })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/me', { ip: '203.0.113.7' })).status).toBe(429);
    expect((await t.request('GET', '/api/v1/me', { ip: '203.0.113.8' })).status).toBe(401);
  });

  it('never limits the health endpoints', async () => {
    for (let i = 0; i < 12; i++) {
      const answer = await t.request('GET', i % 2 ? '/api/health' : '/api/health/db', { ip: '192.0.2.9' });
      expect(answer.status).toBe(200);
      expect(answer.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('rate limiting of login', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_MAX_REQUESTS: '5', LOGIN_RATE_LIMIT_MAX_REQUESTS: '3', LOGIN_RATE_LIMIT_WINDOW_MS: '60000' },
    });
  });
  afterAll(() => t.close());

  it('limits login attempts per IP, separately from the per-user limit', async () => {
    const agent = await t.createUser();
    const ip = '198.51.100.20';
    for (let i = 0; i < 3; i++) {
      expect((await t.request('POST', '/api/v1/auth/login', { ip, body: { email: agent.email, password: 'wrong-password' } })).status).toBe(
        401,
      );
    }
    const refused = await t.request('POST', '/api/v1/auth/login', { ip, body: { email: agent.email, password: agent.password } });
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    expect(refused.headers['retry-after']).toBeDefined();
    expect(
      (await t.request('POST', '/api/v1/auth/login', { ip: '198.51.100.21', body: { email: agent.email, password: agent.password } }))
        .status,
    ).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: agent.token })).headers['ratelimit-remaining']).toBe('4');
  });
});

describeWithPostgresAndRedis('rate limiting across instances (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let a: TestApp;
  let b: TestApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, close } = await startTwoInstances({ RATE_LIMIT_MAX_REQUESTS: '4', RATE_LIMIT_WINDOW_MS: '60000' }));
  });
  afterAll(() => close());

  it('shares one count between two instances on one Redis', async () => {
    const agent = await a.createUser();
    expect((await a.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(200);
    expect((await b.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(200);
    expect((await a.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(200);
    const last = await b.request('GET', '/api/v1/me', { token: agent.token });
    expect(last.status).toBe(200);
    expect(last.headers['ratelimit-remaining']).toBe('0');
    expect((await a.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(429);
    expect((await b.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(429);
  });
});

/** The shipped compose file's TRUST_PROXY and proxy address, and what its nginx writes as X-Forwarded-For. */
function shippedProxy(): { trustProxy: string; proxyAddress: string; forwardedFor(client: string, clientHeader: string): string } {
  const compose = parse(readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; networks?: { default?: { ipv4_address?: string } } }>;
  };
  const nginx = readFileSync(join(__dirname, '..', 'deploy/proxy/nginx.conf'), 'utf8');
  const directives = [...nginx.matchAll(/proxy_set_header X-Forwarded-For (\S+);/g)].map((match) => match[1]);
  expect(directives.length).toBeGreaterThan(0);
  expect(new Set(directives).size).toBe(1);
  return {
    trustProxy: String(compose.services['app-1'].environment?.TRUST_PROXY),
    proxyAddress: String(compose.services.proxy.networks?.default?.ipv4_address),
    // nginx's two ways: its own view of the client, or the client's header with that view appended.
    forwardedFor: (client, clientHeader) => (directives[0] === '$remote_addr' ? client : `${clientHeader}, ${client}`),
  };
}

describe('client addresses behind the shipped proxy settings', () => {
  const proxy = shippedProxy();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_MAX_REQUESTS: '3', TRUST_PROXY: proxy.trustProxy } });
  });
  afterAll(() => t.close());

  const fromClient = (client: string, forged: string) =>
    t.request('GET', '/api/v1/me', { ip: proxy.proxyAddress, headers: { 'x-forwarded-for': proxy.forwardedFor(client, forged) } });

  it('trusts only the proxy of docker-compose.yml, by its fixed address', () => {
    expect(proxy.trustProxy).toBe(proxy.proxyAddress);
    expect(proxy.trustProxy).not.toBe('true');
  });

  it('counts a client that forges a new X-Forwarded-For on every request as the one client it is', async () => {
    for (let i = 0; i < 3; i++) expect((await fromClient('198.51.100.40', `203.0.113.${i}`)).status).toBe(401);
    expect((await fromClient('198.51.100.40', '203.0.113.99')).status).toBe(429);
    expect((await fromClient('198.51.100.41', '198.51.100.40')).status).toBe(401);
  });

  it('ignores X-Forwarded-For from a sender that is not the proxy', async () => {
    const forged = { 'x-forwarded-for': '203.0.113.50' };
    for (let i = 0; i < 3; i++) expect((await t.request('GET', '/api/v1/me', { ip: '198.51.100.60', headers: forged })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/me', { ip: '198.51.100.60', headers: forged })).status).toBe(429);
    expect((await t.request('GET', '/api/v1/me', { ip: '198.51.100.61', headers: forged })).status).toBe(401);
  });

  it('counts IPv6 clients by their /64 and IPv4-mapped addresses as IPv4', async () => {
    for (let i = 1; i <= 3; i++) expect((await fromClient(`2001:db8:1:2::${i}`, '')).status).toBe(401);
    expect((await fromClient('2001:db8:1:2:ffff::9', '')).status).toBe(429);
    expect((await fromClient('2001:db8:1:3::1', '')).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await fromClient('198.51.100.70', '')).status).toBe(401);
    expect((await fromClient('::ffff:198.51.100.70', '')).status).toBe(429);
  });
});

import { InstanceRegistry } from '../src/database/instance-registry';
import { EventStreamClients } from '../src/events/event-stream-clients.service';
import { eventually } from './support/channel';
import { clockAhead } from './support/clock';
import { describeWithPostgresAndRedis } from './support/environment';
import { SseClient } from './support/sse-client';
import { startTestApp, startTwoInstances, TestApp } from './support/test-app';

type TestUser = Awaited<ReturnType<TestApp['createUser']>>;

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `${(await t.app.getUrl()).replace('[::1]', '127.0.0.1')}/api/v1/events/stream`;
}

/** Resolves once the stream has ended (the server closed it), failing after `timeoutMs`. */
async function ended(client: SseClient, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!client.ended) {
    if (Date.now() - started > timeoutMs) throw new Error(`the stream was still open after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

describe('the event stream ends when its access does', () => {
  let t: TestApp;
  let url: string;
  const clients: SseClient[] = [];
  const open = async (token: string): Promise<SseClient> => {
    const client = await SseClient.connect(url, { authorization: `Bearer ${token}` });
    clients.push(client);
    expect(client.response.status).toBe(200);
    await client.until((c) => c.frames('counts').length > 0);
    return client;
  };

  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => t.close());

  const endings: [string, (agent: TestUser) => Promise<unknown>][] = [
    ['its user logs out', (agent) => t.request('POST', '/api/v1/auth/logout', { token: agent.token })],
    [
      'its user changes their password',
      (agent) =>
        t.request('PATCH', '/api/v1/me', {
          token: agent.token,
          body: { password: 'another-password-1', current_password: agent.password },
        }),
    ],
    [
      'an admin sets a new password',
      async (agent) =>
        t.request('PATCH', `/api/v1/users/${agent.id}`, { token: await t.adminToken(), body: { password: 'another-password-1' } }),
    ],
    [
      'its user becomes an admin',
      async (agent) => t.request('PATCH', `/api/v1/users/${agent.id}`, { token: await t.adminToken(), body: { role: 'admin' } }),
    ],
    ['its user is removed', async (agent) => t.request('DELETE', `/api/v1/users/${agent.id}`, { token: await t.adminToken() })],
  ];

  it.each(endings)('ends when %s', async (_, change) => {
    const agent = await t.createUser();
    const client = await open(agent.token);
    const bystander = await open((await t.createUser()).token);
    await change(agent);
    await ended(client, 5_000);
    expect(bystander.ended).toBe(false);
  });

  it('ends the stream of the session that logs out, and keeps the one of another session of the same user', async () => {
    const agent = await t.createUser();
    const client = await open(agent.token);
    const otherDevice = await open(await t.login(agent.email, agent.password));
    expect((await t.request('POST', '/api/v1/auth/logout', { token: agent.token })).status).toBe(204);
    await ended(client, 5_000);
    const marker = await t.request('POST', '/api/v1/contacts', {
      token: await t.adminToken(),
      body: { phone: '+15550100998', name: 'Marker 2' },
    });
    expect(marker.status).toBe(201);
    await otherDevice.until((c) => c.events.some((event) => event.event === 'contact.created'));
    expect(otherDevice.ended).toBe(false);
  });

  it('ends a stream opened with an API token when the token is revoked', async () => {
    const agent = await t.createUser();
    const created = await t.request('POST', '/api/v1/api-tokens', { token: agent.token, body: { name: 'streaming bot' } });
    const { id, token } = created.body as { id: string; token: string };
    const client = await open(token);
    const sessionStream = await open(agent.token);
    expect((await t.request('DELETE', `/api/v1/api-tokens/${id}`, { token: agent.token })).status).toBe(204);
    await ended(client, 5_000);
    expect(sessionStream.ended).toBe(false);
  });

  it("keeps streaming through a change that leaves the user's access as it was", async () => {
    const agent = await t.createUser();
    const client = await open(agent.token);
    await t.request('PATCH', `/api/v1/users/${agent.id}`, { token: await t.adminToken(), body: { name: 'Renamed Agent' } });
    // The change is checked on the broadcast, at once: a marker event after it arrives on the same stream.
    const marker = await t.request('POST', '/api/v1/contacts', {
      token: await t.adminToken(),
      body: { phone: '+15550100999', name: 'Marker' },
    });
    expect(marker.status).toBe(201);
    await client.until((c) => c.events.some((event) => event.event === 'contact.created'));
    expect(client.ended).toBe(false);
  });
});

describe('the event stream ends when its access token expires', () => {
  let t: TestApp;
  beforeAll(async () => {
    EventStreamClients.accessCheckIntervalMs = 200;
    t = await startTestApp({ env: { AUTH_TOKEN_TTL: '1h' } });
  });
  afterAll(async () => {
    await t.close();
    EventStreamClients.accessCheckIntervalMs = 5_000;
  });

  it('closes a stream within a check of its token’s expiry', async () => {
    const agent = await t.createUser();
    const client = await SseClient.connect(await listen(t), { authorization: `Bearer ${agent.token}` });
    // The clock two hours on once the stream is open (not a token of seconds, which a slow run
    // could see expire before the stream opened).
    const clock = clockAhead(2 * 3_600_000);
    try {
      expect(client.response.status).toBe(200);
      await ended(client, 5_000);
    } finally {
      clock.restore();
      await client.close();
    }
  });
});

describe('STREAM_MAX_PER_USER', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { STREAM_MAX_PER_USER: '2' } });
    url = await listen(t);
  });
  afterAll(() => t.close());

  it("refuses a user's stream beyond the cap with 429, counts other users apart, and takes one again once a stream closes", async () => {
    const agent = await t.createUser();
    const headers = { authorization: `Bearer ${agent.token}` };
    const [first, second] = [await SseClient.connect(url, headers), await SseClient.connect(url, headers)];
    const other = await SseClient.connect(url, { authorization: `Bearer ${(await t.createUser()).token}` });
    try {
      expect([first.response.status, second.response.status, other.response.status]).toEqual([200, 200, 200]);
      const third = await fetch(url, { headers });
      expect(third.status).toBe(429);
      expect(await third.json()).toEqual({
        error: 'At most 2 event streams per user are open at once: close one (another tab or device) first',
      });
      await first.close();
      let again: Response;
      const deadline = Date.now() + 5_000;
      do {
        again = await fetch(url, { headers });
        if (again.status === 200 || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      } while (again.status === 429);
      expect(again.status).toBe(200);
      await again.body?.cancel();
    } finally {
      await Promise.all([first.close(), second.close(), other.close()]);
    }
  });

  it('stops counting a stream whose row outlived it (its delete failed) at the next sweep of its instance', async () => {
    const agent = await t.createUser();
    const userId = agent.id.replace(/^user_(\w{8})(\w{4})(\w{4})(\w{4})(\w{12})$/, '$1-$2-$3-$4-$5');
    const instanceId = t.app.get(InstanceRegistry).id;
    for (const n of [1, 2])
      await t.sql(`INSERT INTO event_streams (id, user_id, instance_id, opened_at) VALUES ($1, $2, $3, now() - interval '1 minute')`, [
        `00000000-0000-7000-8000-00000000000${n}`,
        userId,
        instanceId,
      ]);
    const headers = { authorization: `Bearer ${agent.token}` };
    expect((await fetch(url, { headers })).status).toBe(429);
    await eventually(async () => {
      const answer = await fetch(url, { headers });
      await answer.body?.cancel();
      expect(answer.status).toBe(200);
    }, 3 * EventStreamClients.accessCheckIntervalMs);
  });
});

describeWithPostgresAndRedis('the event stream across two instances (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  let urlOfA: string;
  let urlOfB: string;
  beforeAll(async () => {
    instances = await startTwoInstances({ STREAM_MAX_PER_USER: '2' });
    urlOfA = await listen(instances.a);
    urlOfB = await listen(instances.b);
  });
  afterAll(() => instances.close());

  it('ends the stream on instance B within 10 s of its user logging out on instance A', async () => {
    const agent = await instances.a.createUser();
    const client = await SseClient.connect(urlOfB, { authorization: `Bearer ${agent.token}` });
    try {
      expect(client.response.status).toBe(200);
      await client.until((c) => c.frames('counts').length > 0);
      expect((await instances.a.request('POST', '/api/v1/auth/logout', { token: agent.token })).status).toBe(204);
      const ms = await ended(client, 10_000);
      console.log(`a revoked user's stream on the other instance ended ${ms} ms after the logout`);
    } finally {
      await client.close();
    }
  });

  it('refuses on instance B a session logged out and an API token revoked on instance A', async () => {
    const agent = await instances.a.createUser();
    const created = await instances.a.request('POST', '/api/v1/api-tokens', { token: agent.token, body: { name: 'two instances' } });
    const { id, token } = created.body as { id: string; token: string };
    // Both seen by B first, so B holds them in its short caches.
    expect((await instances.b.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(200);
    expect((await instances.b.request('GET', '/api/v1/me', { token })).status).toBe(200);
    const session = await instances.a.login(agent.email, agent.password);
    expect((await instances.a.request('POST', '/api/v1/auth/logout', { token: agent.token })).status).toBe(204);
    expect((await instances.a.request('DELETE', `/api/v1/api-tokens/${id}`, { token: session })).status).toBe(204);
    await eventually(async () => expect((await instances.b.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(401));
    await eventually(async () => expect((await instances.b.request('GET', '/api/v1/me', { token })).status).toBe(401));
    expect((await instances.b.request('GET', '/api/v1/me', { token: session })).status).toBe(200);
  });

  it('counts the streams a user has open on both instances against one cap', async () => {
    const agent = await instances.a.createUser();
    const headers = { authorization: `Bearer ${agent.token}` };
    const onA = await SseClient.connect(urlOfA, headers);
    const onB = await SseClient.connect(urlOfB, headers);
    try {
      expect([onA.response.status, onB.response.status]).toEqual([200, 200]);
      expect((await fetch(urlOfA, { headers })).status).toBe(429);
      expect((await fetch(urlOfB, { headers })).status).toBe(429);
    } finally {
      await Promise.all([onA.close(), onB.close()]);
    }
  });
});

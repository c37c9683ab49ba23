import { Webhook as StandardWebhook } from 'standardwebhooks';
import { eventually } from './support/channel';
import { describeWithPostgresAndRedis } from './support/environment';
import { customerWrites } from './support/inbox';
import { startTestApp, startTwoInstances, TestApp } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { WebhookReceiver } from './support/webhook-receiver';
import { Client } from 'pg';
import { EmbeddedPostgres } from '../src/database/embedded-postgres';

const SECRET = 'a-receiver-secret-of-some-length';
const FAST_RETRIES = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms', WEBHOOK_TIMEOUT_MS: '2000' };

let paths = 0;
const newPath = () => `/hook-${(paths += 1)}`;

describe('webhook registrations', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  const register = (body: Record<string, unknown>, token = admin) => t.request('POST', '/api/v1/webhooks', { token, body });

  it('registers an https receiver with 201 and never returns the secret', async () => {
    const answer = await register({
      url: 'https://93.184.216.34/hooks',
      events: ['message.received', 'conversation.assigned'],
      secret: SECRET,
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-f]{32}$/),
      url: 'https://93.184.216.34/hooks',
      events: ['conversation.assigned', 'message.received'],
      active: true,
      disabled_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(answer.text).not.toContain(SECRET);
    const got = await t.request('GET', `/api/v1/webhooks/${answer.body.id}`, { token: admin });
    expect(got.body).toEqual(answer.body);
    expect(got.text).not.toContain(SECRET);
  });

  it.each([
    ['http', 'http://93.184.216.34/hooks', 'url must use https'],
    ['a private address', 'https://10.0.0.5/hook', 'private'],
    ['loopback by name', 'https://localhost/hook', 'private'],
    ['the IPv6 loopback', 'https://[::1]/hook', 'private'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data', 'private'],
    ['a CGNAT address', 'https://100.64.1.1/hook', 'private'],
    ['loopback written as a number', 'https://2130706433/hook', 'private'],
  ])('refuses %s with 400 at registration, sending nothing to it', async (_, url, message) => {
    const answer = await register({ url, events: ['*'], secret: SECRET });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain(message);
  });

  it.each([
    ['an unknown event type', { events: ['message.deleted'] }, /^events /],
    ['no event types', { events: [] }, /^events /],
    ['a short secret', { secret: 'short' }, /^secret /],
    ['"*" mixed with types', { events: ['*', 'message.received'] }, /^events must be \["\*"\] alone/],
  ])('refuses %s with 400', async (_, overrides, message) => {
    const answer = await register({ url: 'https://93.184.216.34/hooks', events: ['*'], secret: SECRET, ...overrides });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
  });

  it('is for admins only', async () => {
    const agent = await t.createUser();
    expect((await register({ url: 'https://93.184.216.34/x', events: ['*'], secret: SECRET }, agent.token)).status).toBe(403);
    expect((await t.request('GET', '/api/v1/webhooks', { token: agent.token })).status).toBe(403);
  });

  it('lists, changes, disables, re-enables and deletes a registration', async () => {
    const created = (await register({ url: 'https://93.184.216.34/a', events: ['*'], secret: SECRET })).body;
    expect((await t.request('GET', '/api/v1/webhooks', { token: admin })).body.data.map((w: { id: string }) => w.id)).toContain(created.id);
    const changed = await t.request('PATCH', `/api/v1/webhooks/${created.id}`, {
      token: admin,
      body: { url: 'https://93.184.216.34/b', events: ['contact.created'], active: false },
    });
    expect(changed.body).toMatchObject({ url: 'https://93.184.216.34/b', events: ['contact.created'], active: false });
    expect((await t.request('PATCH', `/api/v1/webhooks/${created.id}`, { token: admin, body: { active: true } })).body.active).toBe(true);
    expect((await t.request('PATCH', `/api/v1/webhooks/${created.id}`, { token: admin, body: { url: 'https://10.1.1.1/' } })).status).toBe(
      400,
    );
    expect((await t.request('DELETE', `/api/v1/webhooks/${created.id}`, { token: admin })).status).toBe(204);
    expect((await t.request('GET', `/api/v1/webhooks/${created.id}`, { token: admin })).status).toBe(404);
  });

  it('attempts no delivery to a public address registered while no event happens', async () => {
    const created = (await register({ url: 'https://93.184.216.34/quiet', events: ['*'], secret: SECRET })).body;
    expect((await t.request('GET', `/api/v1/webhooks/${created.id}`, { token: admin })).body).toMatchObject({
      url: 'https://93.184.216.34/quiet',
      events: ['*'],
      active: true,
    });
    expect(await t.sql('SELECT id FROM webhook_deliveries')).toEqual([]);
    expect(await t.sql('SELECT id FROM events')).toEqual([]);
  });

  it('answers 404 for unknown and wrongly prefixed ids', async () => {
    expect((await t.request('GET', '/api/v1/webhooks/wh_0000000000007000800000000000000a', { token: admin })).status).toBe(404);
    expect((await t.request('DELETE', '/api/v1/webhooks/ct_0000000000007000800000000000000a', { token: admin })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/webhooks/wh_0000000000007000800000000000000a/deliveries', { token: admin })).status).toBe(404);
  });
});

describe('webhook deliveries', () => {
  let t: TestApp;
  let admin: string;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ env: FAST_RETRIES });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const register = async (path: string, events: string[] = ['*']) =>
    (await t.request('POST', '/api/v1/webhooks', { token: admin, body: { url: receiver.url(path), events, secret: SECRET } })).body as {
      id: string;
    };
  const createContact = (phone: string) => t.request('POST', '/api/v1/contacts', { token: admin, body: { phone, name: 'Hook Test' } });
  const deliveriesOf = async (webhookId: string) =>
    (await t.request('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: admin })).body.data as Record<string, unknown>[];

  it('delivers the seed’s envelope, signed so a Standard Webhooks library verifies it', async () => {
    const path = newPath();
    await register(path, ['contact.created']);
    const contact = (await createContact('+14155550101')).body;
    const [delivery] = await eventually(async () => {
      expect(receiver.received(path)).toHaveLength(1);
      return receiver.received(path);
    });
    expect(delivery.json).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'contact.created',
      created_at: expect.stringMatching(/Z$/),
      data: { contact },
    });
    expect(delivery.headers['webhook-id']).toBe(delivery.json.id);
    expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(delivery.headers['content-type']).toBe('application/json');
    const verified = new StandardWebhook(SECRET, { format: 'raw' }).verify(delivery.body, delivery.headers as Record<string, string>);
    expect(verified).toEqual(delivery.json);
    expect(() =>
      new StandardWebhook('another-secret-entirely', { format: 'raw' }).verify(delivery.body, delivery.headers as Record<string, string>),
    ).toThrow();
  });

  it('delivers only the event types a registration subscribed to', async () => {
    const path = newPath();
    const webhook = await register(path, ['conversation.closed']);
    const { id } = await customerWrites(t);
    await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'closed' } });
    await eventually(async () => expect(receiver.received(path).map((d) => d.json.type)).toEqual(['conversation.closed']));
    // Relayed in order, the earlier events of the conversation got their deliveries (if any) before this one.
    expect((await deliveriesOf(webhook.id)).map((d) => d.event_type)).toEqual(['conversation.closed']);
  });

  it('retries a failing receiver with the same webhook-id until it answers 2xx, and logs the attempts', async () => {
    const path = newPath();
    const webhook = await register(path, ['contact.created']);
    receiver.script(path, { status: 500, body: 'boom' }, { status: 502 });
    await createContact('+14155550102');
    await eventually(async () => expect(receiver.received(path)).toHaveLength(3));
    expect(new Set(receiver.received(path).map((d) => d.headers['webhook-id'])).size).toBe(1);
    await eventually(async () =>
      expect(await deliveriesOf(webhook.id)).toEqual([
        expect.objectContaining({ status: 'succeeded', attempts: 3, last_status_code: 200, last_response: 'ok', next_attempt_at: null }),
      ]),
    );
  });

  it('marks a delivery failed after the last attempt of the schedule, with the last answer', async () => {
    const path = newPath();
    const webhook = await register(path, ['contact.created']);
    receiver.script(path, ...Array.from({ length: 4 }, () => ({ status: 500, body: 'still broken' })));
    await createContact('+14155550103');
    await eventually(async () =>
      expect(await deliveriesOf(webhook.id)).toEqual([
        expect.objectContaining({ status: 'failed', attempts: 4, last_status_code: 500, last_response: 'still broken' }),
      ]),
    );
    expect(receiver.received(path)).toHaveLength(4);
  });

  it('disables a registration whose receiver answers 410 Gone, and a PATCH re-enables it', async () => {
    const path = newPath();
    const webhook = await register(path, ['contact.created']);
    receiver.script(path, { status: 410 });
    await createContact('+14155550104');
    await eventually(async () =>
      expect((await t.request('GET', `/api/v1/webhooks/${webhook.id}`, { token: admin })).body).toMatchObject({
        active: false,
        disabled_reason: 'The receiver answered 410 Gone',
      }),
    );
    await createContact('+14155550105');
    // Relayed while the registration is disabled: the relay writes the deliveries it makes in that same transaction.
    await eventually(async () => expect(await relayedContactEvents(t, '+14155550105')).toBe(1));
    expect(await deliveriesOf(webhook.id)).toHaveLength(1);
    expect(receiver.received(path)).toHaveLength(1);
    await t.request('PATCH', `/api/v1/webhooks/${webhook.id}`, { token: admin, body: { active: true } });
    await createContact('+14155550106');
    await eventually(async () => expect(receiver.received(path)).toHaveLength(2));
    expect(receiver.received(path).map((d) => d.json.data.contact.phone)).toEqual(['+14155550104', '+14155550106']);
  });

  it('waits at least the receiver’s Retry-After before the next attempt', async () => {
    const path = newPath();
    await register(path, ['contact.created']);
    receiver.script(path, { status: 429, headers: { 'retry-after': '1' } });
    await createContact('+14155550107');
    await eventually(async () => expect(receiver.received(path)).toHaveLength(2), 10_000);
    const [first, second] = receiver.received(path);
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  });

  it('does not let a receiver that never answers delay a healthy one', async () => {
    const [slow, healthy] = [newPath(), newPath()];
    const slowWebhook = await register(slow, ['contact.created']);
    await register(healthy, ['contact.created']);
    receiver.script(slow, { status: 200, hang: true });
    await createContact('+14155550108');
    await eventually(async () => expect(receiver.received(healthy)).toHaveLength(1));
    await eventually(async () => expect(receiver.received(slow)).toHaveLength(1));
    // Both sent together: the healthy one did not wait for the slow one's 2 s timeout.
    expect(receiver.received(healthy)[0].at - receiver.received(slow)[0].at).toBeLessThan(1500);
    await eventually(
      async () =>
        expect((await deliveriesOf(slowWebhook.id))[0]).toMatchObject({
          attempts: 1,
          last_error: expect.stringContaining('no answer within 2000 ms'),
        }),
      10_000,
    );
  });

  it('attempts a delivery once more on demand', async () => {
    const path = newPath();
    const webhook = await register(path, ['contact.created']);
    receiver.script(path, ...Array.from({ length: 4 }, () => ({ status: 500 })));
    await createContact('+14155550109');
    const [failed] = await eventually(async () => {
      const deliveries = await deliveriesOf(webhook.id);
      expect(deliveries[0].status).toBe('failed');
      return deliveries;
    });
    const retried = await t.request('POST', `/api/v1/webhooks/${webhook.id}/deliveries/${failed.id as string}/retry`, { token: admin });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'pending' });
    await eventually(async () => expect((await deliveriesOf(webhook.id))[0]).toMatchObject({ status: 'succeeded', attempts: 5 }));
    expect(
      (await t.request('POST', `/api/v1/webhooks/${webhook.id}/deliveries/dlv_0000000000007000800000000000000a/retry`, { token: admin }))
        .status,
    ).toBe(404);
  });

  it('pages the delivery log and filters it by status', async () => {
    const path = newPath();
    const webhook = await register(path, ['contact.created']);
    for (let i = 0; i < 3; i++) await createContact(`+1415555020${i}`);
    // Recorded as succeeded, which follows the receiver's answer.
    await eventually(async () => expect((await deliveriesOf(webhook.id)).filter((d) => d.status === 'succeeded')).toHaveLength(3));
    const first = await t.request('GET', `/api/v1/webhooks/${webhook.id}/deliveries?limit=2&status=succeeded`, { token: admin });
    expect(first.body.data).toHaveLength(2);
    const second = await t.request(
      'GET',
      `/api/v1/webhooks/${webhook.id}/deliveries?limit=2&status=succeeded&cursor=${first.body.next_cursor as string}`,
      { token: admin },
    );
    expect(second.body).toEqual({ data: [expect.objectContaining({ event_type: 'contact.created' })], next_cursor: null });
  });
});

describe('events committed by another process while the service runs', () => {
  it('are delivered, though no commit of the service announced them', async () => {
    const receiver = await WebhookReceiver.start();
    const t = await startTestApp({ env: FAST_RETRIES });
    try {
      const admin = await t.adminToken();
      await t.request('POST', '/api/v1/webhooks', { token: admin, body: { url: receiver.url('/outside'), events: ['*'], secret: SECRET } });
      // The app's DataSource directly, not the repositories: the relay is not told of this commit.
      await t.sql(`INSERT INTO events (id, type, data, created_at) VALUES (gen_random_uuid(), 'contact.created', '{"n": 7}', now())`);
      await eventually(async () => expect(receiver.received('/outside').map((d) => d.json.data)).toEqual([{ n: 7 }]));
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});

describe('events committed before a crash', () => {
  it('are delivered once after the restart: unrelayed outbox rows and deliveries whose job was lost', async () => {
    const receiver = await WebhookReceiver.start();
    const database = await createTestDatabase();
    try {
      const first = await startTestApp({ database, env: FAST_RETRIES });
      const admin = await first.adminToken();
      await first.request('POST', '/api/v1/webhooks', {
        token: admin,
        body: { url: receiver.url('/crash'), events: ['*'], secret: SECRET },
      });
      await first.close();
      // What a kill -9 leaves behind: events committed but not relayed, and a delivery row relayed but never queued.
      await withOfflineDatabase(database, async (query) => {
        for (let i = 0; i < 5; i++) {
          await query(
            `INSERT INTO events (id, type, data, created_at) VALUES (gen_random_uuid(), 'contact.created', '{"n": ${i}}', now())`,
          );
        }
        const [event] = await query<{ id: string }>(
          `INSERT INTO events (id, type, data, created_at, relayed_at) VALUES (gen_random_uuid(), 'contact.updated', '{"n": 5}', now(), now()) RETURNING id`,
        );
        await query(
          `INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempts, next_attempt_at, created_at, updated_at) SELECT gen_random_uuid(), id, $1, 'pending', 0, now(), now(), now() FROM webhooks`,
          [event.id],
        );
      });
      const second = await startTestApp({ database, env: FAST_RETRIES });
      await eventually(async () => expect(receiver.received('/crash')).toHaveLength(6));
      await allSent(second);
      expect(
        receiver
          .received('/crash')
          .map((d) => d.json.data.n)
          .sort(),
      ).toEqual([0, 1, 2, 3, 4, 5]);
      await second.close();
    } finally {
      await database.drop();
      await receiver.close();
    }
  });
});

describeWithPostgresAndRedis('two instances on one PostgreSQL and Redis (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let a: TestApp;
  let b: TestApp;
  let close: () => Promise<void>;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    ({ a, b, close } = await startTwoInstances(FAST_RETRIES));
  });
  afterAll(async () => {
    await close();
    await receiver.close();
  });

  it('delivers each event once, whichever instance recorded or relayed it', async () => {
    const admin = await a.adminToken();
    await a.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: receiver.url('/pair'), events: ['contact.created'], secret: SECRET },
    });
    for (let i = 0; i < 20; i++) {
      const app = i % 2 ? a : b;
      const created = await app.request('POST', '/api/v1/contacts', {
        token: await app.adminToken(),
        body: { phone: `+1415555${3000 + i}` },
      });
      expect(created.status).toBe(201);
    }
    await eventually(async () => expect(receiver.received('/pair')).toHaveLength(20));
    await allSent(a);
    const ids = receiver.received('/pair').map((d) => d.json.id as string);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
  });
});

/** How many contact.created events for this phone the relay has handed on. */
async function relayedContactEvents(t: TestApp, phone: string): Promise<number> {
  const [row] = await t.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM events WHERE type = 'contact.created' AND data->'contact'->>'phone' = $1 AND relayed_at IS NOT NULL`,
    [phone],
  );
  return row.n;
}

/**
 * Waits until every event is relayed and no delivery is pending: a delivery is only attempted
 * while pending, so nothing more can reach a receiver after this.
 */
async function allSent(t: TestApp): Promise<void> {
  await eventually(async () =>
    expect(
      await t.sql(
        `SELECT (SELECT count(*)::int FROM events WHERE relayed_at IS NULL) AS unrelayed, (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS pending`,
      ),
    ).toEqual([{ unrelayed: 0, pending: 0 }]),
  );
}

/** Runs SQL on a test database while no app has it open (PGlite is opened directly). */
async function withOfflineDatabase(
  database: TestDatabase,
  work: (query: <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>) => Promise<void>,
): Promise<void> {
  if (database.env.DATABASE_URL) return work(<T>(sql: string, params?: unknown[]) => database.query(sql, params) as Promise<T[]>);
  const embedded = await EmbeddedPostgres.start(database.env.DATA_DIR, 1);
  const { host, port, username, database: name } = embedded.connectionOptions;
  const client = new Client({ host, port, user: username, database: name });
  await client.connect();
  try {
    await work(async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[]);
  } finally {
    await client.end();
    await embedded.stop();
  }
}

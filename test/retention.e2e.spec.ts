import { RetentionService } from '../src/events/retention.service';
import { eventually } from './support/channel';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const FAST_RETRIES = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms', WEBHOOK_TIMEOUT_MS: '2000' };
const OLD = `interval '31 days'`;

describe('retention of events and webhook deliveries (EVENT_RETENTION, 30 days by default)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ env: FAST_RETRIES });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** The contact.created event of a phone, with its delivery (the registration receives only contact.created). */
  const contactEvent = async (phone: string) => {
    const [row] = await t.sql<{ event_id: string; delivery_id: string | null; status: string | null }>(
      `SELECT e.id AS event_id, d.id AS delivery_id, d.status FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id
        WHERE e.type = 'contact.created' AND e.data->'contact'->>'phone' = $1`,
      [phone],
    );
    return row;
  };
  const exists = async (table: 'events' | 'webhook_deliveries' | 'messages', id: string) =>
    (await t.sql(`SELECT 1 FROM ${table} WHERE id = $1`, [id])).length === 1;
  const backdateEvent = (id: string) =>
    t.sql(`UPDATE events SET created_at = created_at - ${OLD}, relayed_at = relayed_at - ${OLD} WHERE id = $1`, [id]);
  const backdateDelivery = (id: string) =>
    t.sql(`UPDATE webhook_deliveries SET created_at = created_at - ${OLD}, updated_at = updated_at - ${OLD} WHERE id = $1`, [id]);

  it('deletes relayed events and finished deliveries older than the retention, keeping pending work, recent rows and every message', async () => {
    const path = '/retention';
    const registered = await t.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: receiver.url(path), events: ['contact.created'], secret: 'a-receiver-secret-of-some-length' },
    });
    expect(registered.status).toBe(201);
    receiver.script(path, ...Array.from({ length: 4 }, () => ({ status: 500 }))); // the first contact's delivery fails
    const phones = {
      failed: '+14155558001',
      succeeded: '+14155558002',
      pending: '+14155558003',
      recentDelivery: '+14155558004',
      recent: '+14155558005',
    };
    for (const phone of Object.values(phones)) {
      expect((await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone } })).status).toBe(201);
      await eventually(async () => expect((await contactEvent(phone))?.status).toMatch(/^(succeeded|failed)$/));
    }
    const conversation = await customerWrites(t, { text: 'Keep me forever' });
    const [message] = await t.sql<{ id: string }>(
      `SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.id = $1`,
      [conversation.id.replace(/^conv_/, '')],
    );
    await eventually(async () => expect(await t.sql('SELECT id FROM events WHERE relayed_at IS NULL')).toEqual([]));
    await eventually(async () => expect(await t.sql(`SELECT id FROM webhook_deliveries WHERE status = 'pending'`)).toEqual([]));
    const rows = {
      failed: await contactEvent(phones.failed),
      succeeded: await contactEvent(phones.succeeded),
      pending: await contactEvent(phones.pending),
      recentDelivery: await contactEvent(phones.recentDelivery),
      recent: await contactEvent(phones.recent),
    };
    expect(rows.failed.status).toBe('failed');
    expect(rows.succeeded.status).toBe('succeeded');

    // 31 days ago: everything but the recent event; every delivery but the recent two; the customer's events and message too.
    for (const row of [rows.failed, rows.succeeded, rows.pending, rows.recentDelivery]) await backdateEvent(row.event_id);
    for (const row of [rows.failed, rows.succeeded, rows.pending]) await backdateDelivery(row.delivery_id!);
    // A delivery still waiting for a later attempt.
    await t.sql(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() + interval '1 day' WHERE id = $1`, [
      rows.pending.delivery_id,
    ]);
    const customerEvents = await t.sql<{ id: string }>(`SELECT id FROM events WHERE type <> 'contact.created'`);
    expect(customerEvents.length).toBeGreaterThan(0);
    await t.sql(`UPDATE events SET created_at = created_at - ${OLD}, relayed_at = relayed_at - ${OLD} WHERE type <> 'contact.created'`);
    await t.sql(`UPDATE messages SET created_at = created_at - interval '400 days'`);
    const messagesBefore = await t.sql('SELECT id FROM messages ORDER BY id');

    const result = await t.app.get(RetentionService).pruneNow();
    expect(result.before.getTime()).toBeCloseTo(Date.now() - 30 * 86_400_000, -4);

    // Old and finished: gone, event and delivery.
    for (const row of [rows.failed, rows.succeeded]) {
      expect(await exists('webhook_deliveries', row.delivery_id!)).toBe(false);
      expect(await exists('events', row.event_id)).toBe(false);
    }
    for (const { id } of customerEvents) expect(await exists('events', id)).toBe(false);
    // A pending delivery and its event stay, as does an old event whose delivery finished recently, and recent rows.
    for (const row of [rows.pending, rows.recentDelivery, rows.recent]) {
      expect(await exists('webhook_deliveries', row.delivery_id!)).toBe(true);
      expect(await exists('events', row.event_id)).toBe(true);
    }
    expect(await t.sql(`SELECT status FROM webhook_deliveries WHERE id = $1`, [rows.pending.delivery_id])).toEqual([{ status: 'pending' }]);
    // Messages are never pruned.
    expect(await t.sql('SELECT id FROM messages ORDER BY id')).toEqual(messagesBefore);
    expect(await exists('messages', message.id)).toBe(true);
    const thread = await t.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: admin });
    expect(thread.body.data.map((m) => m.text)).toContain('Keep me forever');
    // The attempt log answers what is left.
    const log = await t.request('GET', `/api/v1/webhooks/${registered.body.id}/deliveries`, { token: admin });
    expect(log.status).toBe(200);
    const listed = log.body.data.map((d: { id: string }) => d.id);
    const publicId = (uuid: string | null) => `dlv_${uuid!.replace(/-/g, '')}`;
    expect(listed).toEqual(
      expect.arrayContaining([rows.pending, rows.recentDelivery, rows.recent].map((row) => publicId(row.delivery_id))),
    );
    for (const row of [rows.failed, rows.succeeded]) expect(listed).not.toContain(publicId(row.delivery_id));

    // Nothing more to do a second time; once the pending delivery has finished long enough ago, it and its event go too.
    expect(await t.app.get(RetentionService).pruneNow()).toMatchObject({ events: 0, records: 0 });
    await t.sql(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = $1`, [rows.pending.delivery_id]);
    await backdateDelivery(rows.pending.delivery_id!);
    expect(await t.app.get(RetentionService).pruneNow()).toMatchObject({ events: 1, records: 1 });
    expect(await exists('events', rows.pending.event_id)).toBe(false);
    expect(await exists('events', rows.recentDelivery.event_id)).toBe(true);
  });
});

describe('retention of e-mails and account links (EVENT_RETENTION)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** Invites a user (no provider: the e-mail is written off at once, and the link answered); answers its uuid and link token. */
  const invite = async (name: string) => {
    const answer = await t.request('POST', '/api/v1/users', {
      token: await t.adminToken(),
      body: { email: `${name}-${Date.now()}@example.com`, name, role: 'agent' },
    });
    expect(answer.status).toBe(201);
    const id = (answer.body.id as string).replace(/^user_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    await eventually(async () =>
      expect(await t.sql(`SELECT status FROM outbound_emails WHERE user_id = $1`, [id])).toEqual([{ status: 'sent' }]),
    );
    return { id, token: new URL(answer.body.invite_url as string).searchParams.get('token')! };
  };
  const count = async (table: 'outbound_emails' | 'account_tokens', userId: string) =>
    (await t.sql(`SELECT 1 FROM ${table} WHERE user_id = $1`, [userId])).length;

  it('deletes finished e-mails and used or expired links older than the retention, keeping pending e-mails and live links', async () => {
    const sentLongAgo = await invite('old');
    const pendingLongAgo = await invite('pending');
    const recent = await invite('recent');
    expect(
      (await t.request('POST', '/api/v1/auth/accept-invite', { body: { token: sentLongAgo.token, password: 'accepted-long-ago' } })).status,
    ).toBe(200);
    await t.sql(`UPDATE outbound_emails SET updated_at = updated_at - ${OLD} WHERE user_id = ANY($1::uuid[])`, [
      [sentLongAgo.id, pendingLongAgo.id],
    ]);
    await t.sql(`UPDATE outbound_emails SET status = 'pending', next_attempt_at = now() + interval '1 day' WHERE user_id = $1`, [
      pendingLongAgo.id,
    ]);
    await t.sql(`UPDATE account_tokens SET used_at = used_at - ${OLD} WHERE user_id = $1`, [sentLongAgo.id]);
    // An expired link of long ago.
    await t.sql(`UPDATE account_tokens SET expires_at = now() - ${OLD} WHERE user_id = $1`, [pendingLongAgo.id]);

    const result = await t.app.get(RetentionService).pruneNow();
    expect(result.records).toBe(3);
    expect(await count('outbound_emails', sentLongAgo.id)).toBe(0);
    expect(await count('account_tokens', sentLongAgo.id)).toBe(0);
    expect(await count('account_tokens', pendingLongAgo.id)).toBe(0);
    expect(await count('outbound_emails', pendingLongAgo.id)).toBe(1);
    expect(await count('outbound_emails', recent.id)).toBe(1);
    expect(await count('account_tokens', recent.id)).toBe(1);
    expect(
      (await t.request('POST', '/api/v1/auth/accept-invite', { body: { token: recent.token, password: 'accepted-just-now' } })).status,
    ).toBe(200);
  });
});

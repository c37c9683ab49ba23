import { parsePublicId } from '../src/common/ids';
import { channelStatus, channelWebhook, eventually } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

describe('sending through the WhatsApp Cloud API', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({
      env: {
        ...graph.channelEnv,
        MESSAGING_RETRY_SCHEDULE: '50ms,50ms,50ms',
      },
    });
    admin = await t.adminToken();
  });
  afterEach(() => graph.reset());
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const send = (conversationId: string, body: unknown, headers: Record<string, string> = {}) =>
    t.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: admin, body, headers });
  const messageById = async (conversationId: string, messageId: string) => {
    const thread = await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin });
    return (thread.body.data as { id: string; status: string; error: string | null }[]).find((m) => m.id === messageId)!;
  };
  const statusBecomes = (conversationId: string, messageId: string, status: string) =>
    eventually(async () => {
      const message = await messageById(conversationId, messageId);
      expect(message.status).toBe(status);
      return message;
    });

  it('answers 201 with the message queued, then sends it with the bearer token and marks it sent', async () => {
    const { id, phone } = await customerWrites(t);
    const answer = await send(id, { type: 'text', text: 'Your order has shipped' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      conversation_id: id,
      direction: 'outbound',
      type: 'text',
      text: 'Your order has shipped',
      content: null,
      reply_to: null,
      reactions: [],
      referral: null,
      pricing_category: null,
      pricing_type: null,
      pricing_model: null,
      from: null,
      status: 'queued',
      error: null,
      sent_by: (await t.request('GET', '/api/v1/me', { token: admin })).body.id,
      automated: false,
      media: null,
      created_at: expect.any(String),
    });
    await statusBecomes(id, answer.body.id, 'sent');
    // Whether the fake has finished writing its answer is a race with the status check: left out.
    expect(graph.sendsTo(phone).map(({ answered: _answered, at: _at, ...request }) => request)).toEqual([
      {
        method: 'POST',
        path: '/106540352242922/messages',
        authorization: 'Bearer graph-token',
        body: {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: phone.slice(1),
          type: 'text',
          text: { body: 'Your order has shipped', preview_url: false },
        },
      },
    ]);
  });

  it('records message.sent with the conversation, then message.status when the channel accepts it', async () => {
    const { id } = await customerWrites(t);
    const answer = await send(id, { type: 'text', text: 'hi' });
    await statusBecomes(id, answer.body.id, 'sent');
    const sent = (await t.events('message.sent')).filter((e) => e.data.message.id === answer.body.id);
    expect(sent.map((e) => e.data)).toEqual([{ message: answer.body, conversation: expect.objectContaining({ id }) }]);
    const status = (await t.events('message.status')).filter((e) => e.data.message.id === answer.body.id);
    expect(status.map((e) => e.data)).toEqual([{ message: expect.objectContaining({ status: 'sent' }), conversation_id: id }]);
  });

  it('moves last_message_at with an outbound message', async () => {
    const { id } = await customerWrites(t);
    const before = (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body.last_message_at;
    await send(id, { type: 'text', text: 'later' });
    expect(Date.parse((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body.last_message_at)).toBeGreaterThan(
      Date.parse(before),
    );
  });

  it('sends a template in the Graph API’s shape', async () => {
    const { id, phone } = await customerWrites(t);
    const components = [{ type: 'body', parameters: [{ type: 'text', text: 'A-1001' }] }];
    const answer = await send(id, { type: 'template', template: { name: 'order_update', language: 'en_US', components } });
    await statusBecomes(id, answer.body.id, 'sent');
    expect(graph.sendsTo(phone)[0].body).toMatchObject({
      type: 'template',
      template: { name: 'order_update', language: { code: 'en_US' }, components },
    });
  });

  it.each(['image', 'document', 'audio', 'video'])('sends an %s by link', async (type) => {
    const { id, phone } = await customerWrites(t);
    const media = { link: 'https://cdn.example.com/file', caption: 'here it is' };
    const answer = await send(id, { type, [type]: media });
    expect(answer.body).toMatchObject({ type, text: 'here it is', content: media });
    await statusBecomes(id, answer.body.id, 'sent');
    expect(graph.sendsTo(phone)[0].body).toMatchObject({ type, [type]: media });
  });

  it.each([
    ['a text without text', { type: 'text' }, /^text /],
    ['an empty text', { type: 'text', text: '' }, /^text /],
    ['a text over 4096 characters', { type: 'text', text: 'x'.repeat(4097) }, /^text /],
    ['an unknown type', { type: 'carousel' }, /^type /],
    ['a template without a name', { type: 'template', template: { language: 'en_US' } }, /^template\.name /],
    ['an image without a link', { type: 'image', image: { caption: 'x' } }, /^image\.link /],
    ['an http media link', { type: 'image', image: { link: 'http://cdn.example.com/a.png' } }, /link must be an https URL/],
    ['an unknown field', { type: 'text', text: 'x', priority: 1 }, /priority is not a known field/],
  ])('refuses %s with 400 naming the field', async (_, body, message) => {
    const { id } = await customerWrites(t);
    const answer = await send(id, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
  });

  it('refuses a payload field that does not go with the type with 422', async () => {
    const { id } = await customerWrites(t);
    const answer = await send(id, { type: 'text', text: 'x', image: { link: 'https://cdn.example.com/a.png' } });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: 'image does not go with type text' });
  });

  it('answers 404 for an unknown conversation', async () => {
    expect((await send('conv_0000000000007000800000000000000a', { type: 'text', text: 'x' })).status).toBe(404);
  });

  describe('the 24-hour customer window', () => {
    const dayAndAMinuteAgo = () => Math.floor(Date.now() / 1000) - 24 * 3600 - 60;

    it('refuses free-form messages more than 24 hours after the customer’s last message, with 422', async () => {
      const { id } = await customerWrites(t, { timestamp: dayAndAMinuteAgo() });
      const answer = await send(id, { type: 'text', text: 'too late' });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ error: "The customer's last message is more than 24 hours old: only template messages can be sent" });
      expect((await send(id, { type: 'image', image: { link: 'https://cdn.example.com/a.png' } })).status).toBe(422);
    });

    it('allows templates outside the window', async () => {
      const { id } = await customerWrites(t, { timestamp: dayAndAMinuteAgo() });
      expect((await send(id, { type: 'template', template: { name: 'follow_up', language: 'en' } })).status).toBe(201);
    });

    it('counts from the channel’s timestamp of the customer’s last message', async () => {
      const { id, phone } = await customerWrites(t, { timestamp: dayAndAMinuteAgo() });
      await customerWrites(t, { phone: phone.slice(1), timestamp: Math.floor(Date.now() / 1000) - 23 * 3600 });
      expect((await send(id, { type: 'text', text: 'still in time' })).status).toBe(201);
    });
  });

  describe('retries and failures', () => {
    it('retries after 429 and 5xx answers and a send finally succeeds', async () => {
      const { id, phone } = await customerWrites(t);
      graph.failNext(phone, { status: 429, body: { error: { message: 'Too many calls', code: 80007 } } }, { status: 503, body: {} });
      const answer = await send(id, { type: 'text', text: 'persist' });
      await statusBecomes(id, answer.body.id, 'sent');
      expect(graph.sendsTo(phone)).toHaveLength(3);
    });

    it('marks the message failed with the channel’s reason after the last retry', async () => {
      const { id, phone } = await customerWrites(t);
      const down = { status: 500, body: { error: { message: 'Service temporarily unavailable', code: 2 } } };
      graph.failNext(phone, down, down, down, down);
      const answer = await send(id, { type: 'text', text: 'doomed' });
      const failed = await statusBecomes(id, answer.body.id, 'failed');
      expect(failed.error).toBe('(#2) Service temporarily unavailable');
      expect(graph.sendsTo(phone)).toHaveLength(4);
    });

    it('does not retry a refusal such as 131047 and marks the message failed with its text', async () => {
      const { id, phone } = await customerWrites(t);
      graph.failNext(phone, {
        status: 400,
        body: {
          error: {
            message: 'Re-engagement message',
            code: 131047,
            error_data: { details: 'Message failed to send because more than 24 hours have passed' },
          },
        },
      });
      const answer = await send(id, { type: 'text', text: 'refused' });
      const failed = await statusBecomes(id, answer.body.id, 'failed');
      expect(failed.error).toBe('(#131047) Re-engagement message: Message failed to send because more than 24 hours have passed');
      // A later message that needs one retry: by the time it is sent, a retry of the refused one, due sooner, would have gone out.
      graph.failNext(phone, { status: 503, body: {} });
      const later = await send(id, { type: 'text', text: 'later' });
      await statusBecomes(id, later.body.id, 'sent');
      expect(graph.sendsTo(phone).map((r) => (r.body?.text as { body: string }).body)).toEqual(['refused', 'later', 'later']);
    });
  });

  describe('Idempotency-Key', () => {
    it('answers a retried request with the first result and sends once', async () => {
      const { id, phone } = await customerWrites(t);
      const first = await send(id, { type: 'text', text: 'once' }, { 'idempotency-key': 'order-42-shipped' });
      const retry = await send(id, { text: 'once', type: 'text' }, { 'idempotency-key': 'order-42-shipped' });
      expect(retry.status).toBe(201);
      expect(retry.body.id).toBe(first.body.id);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      await statusBecomes(id, first.body.id, 'sent');
      // A message queued after the retried request: a second send of the first, queued sooner, would have gone out by the time it is sent.
      const later = await send(id, { type: 'text', text: 'later' });
      await statusBecomes(id, later.body.id, 'sent');
      expect(graph.sendsTo(phone).map((r) => (r.body?.text as { body: string }).body)).toEqual(['once', 'later']);
    });

    it('answers two simultaneous requests with one key with one message', async () => {
      const { id } = await customerWrites(t);
      const answers = await Promise.all([1, 2, 3].map(() => send(id, { type: 'text', text: 'race' }, { 'idempotency-key': 'race-key' })));
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    });

    it('refuses the same key with another body with 409', async () => {
      const { id } = await customerWrites(t);
      await send(id, { type: 'text', text: 'first' }, { 'idempotency-key': 'reused' });
      const answer = await send(id, { type: 'text', text: 'second' }, { 'idempotency-key': 'reused' });
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({ error: 'Idempotency-Key was already used with a different request' });
    });

    it('refuses a malformed key with 400', async () => {
      const { id } = await customerWrites(t);
      expect((await send(id, { type: 'text', text: 'x' }, { 'idempotency-key': 'has spaces' })).status).toBe(400);
    });
  });

  describe('statuses from the channel', () => {
    const deliverStatuses = (...statuses: Record<string, unknown>[]) =>
      t.request('POST', '/api/webhooks/messaging', { body: channelWebhook({ statuses }) });

    it('moves a message sent -> delivered -> read, and never back when statuses arrive out of order', async () => {
      const { id } = await customerWrites(t);
      const answer = await send(id, { type: 'text', text: 'track me' });
      await statusBecomes(id, answer.body.id, 'sent');
      const [row] = await t.sql<{ channel_message_id: string }>('SELECT channel_message_id FROM messages WHERE id::text = $1', [
        parsePublicId('msg', answer.body.id)!,
      ]);
      expect(row.channel_message_id).toMatch(/^wamid\.fake/);
      await deliverStatuses(channelStatus(row.channel_message_id, 'read'));
      expect((await messageById(id, answer.body.id)).status).toBe('read');
      await deliverStatuses(channelStatus(row.channel_message_id, 'delivered'), channelStatus(row.channel_message_id, 'sent'));
      expect((await messageById(id, answer.body.id)).status).toBe('read');
      const statuses = (await t.events('message.status'))
        .filter((e) => e.data.message.id === answer.body.id)
        .map((e) => e.data.message.status);
      expect(statuses).toEqual(['sent', 'read']);
    });

    it('answers 200 to a status of an id no message has, changing nothing and saying so in the log, not of an out-of-order one', async () => {
      const before = (await t.events('message.status')).length;
      const answer = await deliverStatuses(channelStatus('wamid.nothing-has-this-id', 'read'));
      expect(answer.status).toBe(200);
      expect((await t.events('message.status')).length).toBe(before);
      expect(t.logs.map((line) => line.msg)).toContain(
        'A "read" status for wamid.nothing-has-this-id, which names no message here: nothing changed',
      );
      // A known message's late status changes nothing either, and is no unknown id.
      const { id } = await customerWrites(t);
      const sent = await send(id, { type: 'text', text: 'known' });
      await statusBecomes(id, sent.body.id, 'sent');
      const [row] = await t.sql<{ channel_message_id: string }>('SELECT channel_message_id FROM messages WHERE id::text = $1', [
        parsePublicId('msg', sent.body.id)!,
      ]);
      await deliverStatuses(channelStatus(row.channel_message_id, 'sent'));
      expect(t.logs.some((line) => String(line.msg).includes(`${row.channel_message_id}, which names no message`))).toBe(false);
    });

    it('marks a message failed with the channel’s error text', async () => {
      const { id } = await customerWrites(t);
      const answer = await send(id, { type: 'text', text: 'bounce' });
      await statusBecomes(id, answer.body.id, 'sent');
      const [row] = await t.sql<{ channel_message_id: string }>('SELECT channel_message_id FROM messages WHERE id::text = $1', [
        parsePublicId('msg', answer.body.id)!,
      ]);
      await deliverStatuses(
        channelStatus(row.channel_message_id, 'failed', {
          errors: [
            { code: 131026, title: 'Message undeliverable', error_data: { details: 'Receiver is incapable of receiving this message' } },
          ],
        }),
      );
      expect(await messageById(id, answer.body.id)).toMatchObject({
        status: 'failed',
        error: '(#131026) Message undeliverable: Receiver is incapable of receiving this message',
      });
    });

    it('ignores a failed status for a message already delivered', async () => {
      const { id } = await customerWrites(t);
      const answer = await send(id, { type: 'text', text: 'arrived' });
      await statusBecomes(id, answer.body.id, 'sent');
      const [row] = await t.sql<{ channel_message_id: string }>('SELECT channel_message_id FROM messages WHERE id::text = $1', [
        parsePublicId('msg', answer.body.id)!,
      ]);
      await deliverStatuses(
        channelStatus(row.channel_message_id, 'delivered'),
        channelStatus(row.channel_message_id, 'failed', { errors: [{ code: 1, title: 'late' }] }),
      );
      expect((await messageById(id, answer.body.id)).status).toBe('delivered');
    });
  });

  describe('/api/health/messaging', () => {
    it('answers 200 when the Graph API answers for the phone number id', async () => {
      const answer = await t.request('GET', '/api/health/messaging');
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ status: 'ok', channel: 'whatsapp' });
      expect(graph.requests.filter((r) => r.method === 'GET')).toEqual([
        expect.objectContaining({ path: '/106540352242922', authorization: 'Bearer graph-token' }),
      ]);
    });

    it('asks the Graph API at most once every few seconds', async () => {
      // An app of its own: the shared one may hold an answer from an earlier test, and would then ask nothing here.
      const ownGraph = await FakeGraphApi.start();
      const own = await startTestApp({
        env: {
          MESSAGING_ACCESS_TOKEN: 'graph-token',
          MESSAGING_PHONE_NUMBER_ID: '106540352242922',
          MESSAGING_API_BASE_URL: ownGraph.baseUrl,
        },
      });
      try {
        for (let i = 0; i < 5; i++)
          expect((await own.request('GET', '/api/health/messaging')).body).toEqual({ status: 'ok', channel: 'whatsapp' });
        expect(ownGraph.requests.filter((r) => r.method === 'GET').length).toBeLessThanOrEqual(1);
        expect(ownGraph.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
      } finally {
        await own.close();
        await ownGraph.close();
      }
    });
  });
});

describe('channel health when the Graph API refuses the token or is unreachable', () => {
  it("answers 503 with the Graph API's reason to an admin only, and logs it", async () => {
    const graph = await FakeGraphApi.start();
    graph.healthStatus = 401;
    const t = await startTestApp({
      env: { MESSAGING_ACCESS_TOKEN: 'bad', MESSAGING_PHONE_NUMBER_ID: '1', MESSAGING_API_BASE_URL: graph.baseUrl },
    });
    try {
      const answer = await t.request('GET', '/api/health/messaging');
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({
        error: "Messaging channel is unhealthy; the reason is in the service's log, or ask with an admin's token",
      });
      const agent = await t.createUser();
      expect((await t.request('GET', '/api/health/messaging', { token: agent.token })).body.error).not.toMatch(/OAuth/);
      const toAdmin = await t.request('GET', '/api/health/messaging', { token: await t.adminToken() });
      expect(toAdmin.status).toBe(503);
      expect(toAdmin.body).toEqual({ error: 'Messaging channel is unhealthy: (#190) Invalid OAuth access token' });
      expect(t.logs.some((line) => line.msg === 'Messaging channel is unhealthy: (#190) Invalid OAuth access token')).toBe(true);
    } finally {
      await t.close();
      await graph.close();
    }
  });

  it('answers 503 when the Graph API cannot be reached', async () => {
    const graph = await FakeGraphApi.start();
    const baseUrl = graph.baseUrl;
    await graph.close();
    const t = await startTestApp({ env: { MESSAGING_ACCESS_TOKEN: 't', MESSAGING_PHONE_NUMBER_ID: '1', MESSAGING_API_BASE_URL: baseUrl } });
    try {
      const answer = await t.request('GET', '/api/health/messaging', { token: await t.adminToken() });
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatch(/^Messaging channel is unhealthy: The channel could not be reached/);
    } finally {
      await t.close();
    }
  });
});

describe('the sandbox channel (no MESSAGING_ACCESS_TOKEN)', () => {
  it('accepts sends locally and says so in /api/health/messaging', async () => {
    const t = await startTestApp();
    try {
      expect((await t.request('GET', '/api/health/messaging')).body).toEqual({ status: 'ok', channel: 'sandbox' });
      const { id } = await customerWrites(t);
      const answer = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
        token: await t.adminToken(),
        body: { type: 'text', text: 'hi' },
      });
      await eventually(async () => {
        const thread = await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: await t.adminToken() });
        expect(thread.body.data.find((m: { id: string }) => m.id === answer.body.id)?.status).toBe('sent');
      });
    } finally {
      await t.close();
    }
  });
});

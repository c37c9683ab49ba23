import { parsePublicId } from '../src/common/ids';
import { DEFAULT_INBOX_ID } from '../src/common/default-inbox';
import { toPublicId } from '../src/common/ids';
import { hubSignature, messagesWebhook } from '../scripts/lib/channel-webhook';
import { channelMessage, eventually } from './support/channel';
import { FakeGraphApi, type GraphAnswer } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

/** A refusal as the Cloud API answers a send: the code, its message (which often starts with the code) and details. */
const refusal = (code: number, message: string, headers?: Record<string, string>): GraphAnswer => ({
  status: code === 130429 || code === 4 || code === 80007 ? 429 : 400,
  body: {
    error: {
      message: `(#${code}) ${message}`,
      type: 'OAuthException',
      code,
      error_data: { messaging_product: 'whatsapp', details: `Details of ${code}` },
    },
  },
  ...(headers ? { headers } : {}),
});

describe("the channel's error codes, read right", () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  const DEFAULT_INBOX = toPublicId('inb', DEFAULT_INBOX_ID);

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({ env: { ...graph.channelEnv, MESSAGING_RETRY_SCHEDULE: '50ms,50ms,50ms' } });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const send = (conversationId: string, text: string) =>
    t.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: admin, body: { type: 'text', text } });
  const statusBecomes = (conversationId: string, messageId: string, status: string) =>
    eventually(async () => {
      const thread = (await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin })).body.data;
      const message = thread.find((m) => m.id === messageId)!;
      expect(message.status).toBe(status);
      return message;
    });
  const textsSentTo = (phone: string) => graph.sendsTo(phone).map((r) => (r.body?.text as { body: string }).body);

  it.each([
    [131049, 'This message was not delivered to maintain healthy ecosystem engagement.'],
    [
      131050,
      'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
    ],
    [131026, 'Message undeliverable'],
    [131047, 'Re-engagement message'],
    [132000, 'Number of parameters does not match the expected number of params'],
    [132015, 'Template is paused'],
    [132069, 'Flow is throttled'],
    [100, 'Invalid parameter'],
    [368, 'Temporarily blocked for policies violations'],
  ])('fails the message at once on %s, with the code and the channel’s title, and never sends it again', async (code, message) => {
    const { id, phone } = await customerWrites(t);
    graph.failNext(phone, refusal(code, message));
    const answer = await send(id, 'refused');
    const failed = await statusBecomes(id, answer.body.id, 'failed');
    expect(failed.error).toBe(`(#${code}) ${message}: Details of ${code}`);
    const [event] = (await t.events('message.status')).filter((e) => e.data.message.id === answer.body.id);
    expect(event.data.message).toMatchObject({ status: 'failed', error: failed.error });
    // A later message that needs one retry: by the time it is sent, a retry of the refused one, due sooner, would have gone out.
    graph.failNext(phone, { status: 503, body: {} });
    const later = await send(id, 'later');
    await statusBecomes(id, later.body.id, 'sent');
    expect(textsSentTo(phone)).toEqual(['refused', 'later', 'later']);
  });

  it.each([
    [130429, 'Rate limit hit'],
    [131056, '(Business Account, Consumer Account) pair rate limit hit'],
    [131048, 'Spam rate limit hit'],
    [80007, 'Rate limit issues'],
  ])('retries the message after %s, the pause the channel asks for, until it is sent', async (code, message) => {
    const { id, phone } = await customerWrites(t);
    // The pause asked for is waited out (at least the retry schedule's): Retry-After 0 keeps the test quick.
    graph.failNext(phone, refusal(code, message, { 'retry-after': '0' }), refusal(code, message, { 'retry-after': '0' }));
    const answer = await send(id, 'paced');
    await statusBecomes(id, answer.body.id, 'sent');
    expect(textsSentTo(phone)).toEqual(['paced', 'paced', 'paced']);
  });

  it.each([
    [190, 'Error validating access token: Session has expired on Friday, 27-Nov-26'],
    [131031, 'Business Account locked'],
  ])(
    'fails the message on %s, and the inbox shows the broken token or account and fails health until a passing test mends it',
    async (code, message) => {
      const { id, phone } = await customerWrites(t);
      expect((await t.request('GET', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin })).body).toMatchObject({ channel_error: null });
      graph.failNext(phone, refusal(code, message));
      const answer = await send(id, 'broken');
      const failed = await statusBecomes(id, answer.body.id, 'failed');
      expect(graph.sendsTo(phone)).toHaveLength(1);
      const inbox = (await t.request('GET', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin })).body;
      expect(inbox).toMatchObject({ channel_error: failed.error, channel_error_at: expect.stringMatching(/Z$/) });
      const health = await t.request('GET', '/api/health/messaging', { token: admin });
      expect(health.status).toBe(503);
      expect(health.body.error).toBe(`Messaging channel is unhealthy: ${failed.error}`);

      // The number answers its probe again (a new token, an unlocked account): the admin's test clears it.
      const tested = await t.request('POST', `/api/v1/inboxes/${DEFAULT_INBOX}/test`, { token: admin });
      expect(tested.body).toMatchObject({ ok: true });
      expect((await t.request('GET', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin })).body).toMatchObject({
        channel_error: null,
        channel_error_at: null,
      });
      expect((await t.request('GET', '/api/health/messaging', { token: admin })).status).toBe(200);
    },
  );

  it("keeps an admin's new token when a send made with the old one is refused after it was saved", async () => {
    const number = '300000000000011';
    const created = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: 'Renewed', phone_number_id: number, access_token: 'old-token', app_secret: 'renewed-secret' },
    });
    const inboxId = created.body.id as string;
    const phone = '4915155500011';
    const payload = JSON.stringify(
      messagesWebhook(
        {
          contacts: [{ wa_id: phone, profile: { name: 'Renewed Customer' } }],
          messages: [channelMessage({ from: phone, payload: { body: 'Hi' } })],
        },
        { phoneNumberId: number },
      ),
    );
    await t.request('POST', '/api/webhooks/messaging', {
      payload,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, 'renewed-secret') },
    });
    const [conversation] = (await t.request('GET', `/api/v1/conversations?q=%2B${phone}`, { token: admin })).body.data;
    const expired = refusal(190, 'Error validating access token: Session has expired');
    const inFlight = graph.holdNextSend(phone);
    graph.failNext(phone, expired, expired);
    const first = await send(conversation.id, 'with the old token');
    await inFlight.arrived;
    await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { access_token: 'new-token' } });
    inFlight.release();
    await statusBecomes(conversation.id, first.body.id, 'failed');
    expect((await t.request('GET', `/api/v1/inboxes/${inboxId}`, { token: admin })).body.channel_error).toBeNull();
    // The same refusal of a send made with the token the inbox has now marks it.
    const second = await send(conversation.id, 'with the new token');
    await statusBecomes(conversation.id, second.body.id, 'failed');
    expect((await t.request('GET', `/api/v1/inboxes/${inboxId}`, { token: admin })).body.channel_error).toMatch(/^\(#190\)/);
    await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { status: 'disabled' } });
  });

  it('clears the broken token of another inbox when an admin gives it a new one', async () => {
    const created = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: 'Expired', phone_number_id: '300000000000007', access_token: 'expired-token' },
    });
    const inboxId = created.body.id as string;
    await t.sql('UPDATE inboxes SET channel_error = $2, channel_error_at = now() WHERE id = $1', [
      parsePublicId('inb', inboxId),
      '(#190) Error validating access token',
    ]);
    const health = await t.request('GET', '/api/health/messaging', { token: admin });
    expect(health.body.error).toBe(
      'Messaging channel is unhealthy: inbox "Expired" (300000000000007): (#190) Error validating access token',
    );
    const renamed = await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { name: 'Still expired' } });
    expect(renamed.body.channel_error).toBe('(#190) Error validating access token');
    const mended = await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { access_token: 'fresh-token' } });
    expect(mended.body).toMatchObject({ channel_error: null, channel_error_at: null });
    expect((await t.request('GET', '/api/health/messaging', { token: admin })).status).toBe(200);
    await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { status: 'disabled' } });
  });
});

import { DataSource } from 'typeorm';
import { parsePublicId } from '../src/common/ids';
import { PageQuery } from '../src/common/pagination';
import { ChannelErrorRepository } from '../src/inbound/channel-error.repository';
import { eventually, newWamid } from './support/channel';
import {
  changeErrorsWebhook,
  MESSAGE_KINDS,
  messageWebhook,
  numberChangeWebhook,
  REFERRAL,
  statusWebhook,
} from './support/channel-fixtures';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

/** Every kind the channel carries inbound, what it keeps of statuses, a changed number and a change's errors. */
describe('what the channel carries', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  let phone = 16505550000;
  /** A customer number no other test uses, as the channel writes it (no +). */
  const newCustomer = () => String((phone += 1));

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({
      env: {
        ...graph.channelEnv,
        MESSAGING_RETRY_SCHEDULE: '50ms',
      },
    });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const deliver = async (body: unknown) => {
    const answer = await t.request('POST', '/api/webhooks/messaging', { body });
    expect(answer.status).toBe(200);
    return answer.body as { messages: number; statuses: number };
  };
  const conversationOf = async (e164: string) => {
    const list = await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(e164)}`, { token: admin });
    return list.body.data as { id: string; status: string; customer: { name: string; phone: string } }[];
  };
  const threadOf = async (conversationId: string) =>
    (await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin })).body.data as Record<string, unknown>[];
  const channelIdOf = async (messageId: string) =>
    (
      await t.sql<{ channel_message_id: string | null }>('SELECT channel_message_id FROM messages WHERE id::text = $1', [
        parsePublicId('msg', messageId)!,
      ])
    )[0].channel_message_id;

  describe('every inbound kind', () => {
    it.each(MESSAGE_KINDS.map((fixture) => [fixture.kind, fixture] as const))(
      'stores the kind "%s" with its type, payload and the text a list shows',
      async (_, fixture) => {
        const from = newCustomer();
        expect(await deliver(messageWebhook(from, fixture.message, { profileName: fixture.profileName }))).toEqual({
          messages: 1,
          statuses: 0,
        });
        const [conversation] = await conversationOf(`+${from}`);
        const [message] = await threadOf(conversation.id);
        expect(message).toMatchObject({ direction: 'inbound', from: `+${from}`, reactions: [], referral: null, ...fixture.expected });
        expect(message.content).toEqual(fixture.expected.content);
        const received = (await t.events('message.received')).find((event) => event.data.message.id === message.id);
        expect(received?.data.message).toMatchObject({ type: fixture.expected.type, text: fixture.expected.text });
      },
    );

    it('keeps the click-to-WhatsApp referral on the message', async () => {
      const from = newCustomer();
      await deliver(messageWebhook(from, { type: 'text', text: { body: 'I saw your ad' }, referral: REFERRAL }));
      const [conversation] = await conversationOf(`+${from}`);
      const [message] = await threadOf(conversation.id);
      expect(message).toMatchObject({ type: 'text', text: 'I saw your ad', referral: REFERRAL });
      // A message without one has none.
      await deliver(messageWebhook(from, { type: 'text', text: { body: 'and another thing' } }));
      expect((await threadOf(conversation.id))[0]).toMatchObject({ text: 'and another thing', referral: null });
    });
  });

  describe('replies from the customer', () => {
    it("answers reply_to with the quoted message's id, and null (context kept) when the quoted one is unknown", async () => {
      const { id, phone: e164 } = await customerWrites(t, { text: 'first' });
      const from = e164.slice(1);
      const [first] = await threadOf(id);
      const quoted = (await channelIdOf(first.id as string))!;
      await deliver(messageWebhook(from, { type: 'text', context: { from, id: quoted }, text: { body: 'about that one' } }));
      const unknown = { from: '15550783881', id: newWamid() };
      await deliver(messageWebhook(from, { type: 'text', context: unknown, text: { body: 'about something older' } }));
      const [older, reply] = await threadOf(id);
      expect(reply).toMatchObject({ text: 'about that one', reply_to: first.id, content: { context: { from, id: quoted } } });
      expect(older).toMatchObject({ text: 'about something older', reply_to: null, content: { context: unknown } });
    });

    it("quotes an agent's message, and a media reply keeps its payload with the context", async () => {
      const { id, phone: e164 } = await customerWrites(t);
      const from = e164.slice(1);
      const sent = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
        token: admin,
        body: { type: 'text', text: 'Which one?' },
      });
      const wamid = await eventually(async () => {
        const channelId = await channelIdOf(sent.body.id);
        expect(channelId).toEqual(expect.any(String));
        return channelId!;
      });
      const photo = { mime_type: 'image/jpeg', sha256: 'abc', id: '1003383421387261' };
      await deliver(messageWebhook(from, { type: 'image', context: { from: '15550783881', id: wamid }, image: photo }));
      expect((await threadOf(id))[0]).toMatchObject({
        type: 'image',
        reply_to: sent.body.id,
        content: { ...photo, context: { from: '15550783881', id: wamid } },
      });
    });

    it("never points reply_to at another customer's message", async () => {
      const other = await customerWrites(t, { text: 'not yours' });
      const otherWamid = (await channelIdOf((await threadOf(other.id))[0].id as string))!;
      const from = newCustomer();
      await deliver(messageWebhook(from, { type: 'text', context: { from, id: otherWamid }, text: { body: 'hm' } }));
      const [conversation] = await conversationOf(`+${from}`);
      expect((await threadOf(conversation.id))[0]).toMatchObject({ text: 'hm', reply_to: null });
    });
  });

  describe('a customer who changes their number', () => {
    it('moves the contact to the new number, keeps one thread, and shows the change as a system message', async () => {
      const { id, phone: oldPhone } = await customerWrites(t, { name: 'Sheena Nelson', text: 'hello from my old phone' });
      const newPhone = newCustomer();
      expect(await deliver(numberChangeWebhook(oldPhone.slice(1), newPhone))).toEqual({ messages: 1, statuses: 0 });
      const conversation = (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body;
      expect(conversation.customer).toEqual({ name: 'Sheena Nelson', phone: `+${newPhone}`, wa_user_id: null, username: null });
      expect(await conversationOf(oldPhone)).toEqual([]);
      const [system, first] = await threadOf(id);
      expect(system).toMatchObject({
        type: 'system',
        direction: 'inbound',
        text: `User Sheena Nelson changed from ${oldPhone.slice(1)} to ${newPhone}`,
        content: { type: 'user_changed_number', wa_id: newPhone },
        from: `+${newPhone}`,
      });
      expect(first).toMatchObject({ text: 'hello from my old phone' });
      const updated = (await t.events('contact.updated')).filter((event) => event.data.contact.phone === `+${newPhone}`);
      expect(updated).toHaveLength(1);

      // The customer writes from the new number: the same thread.
      await deliver(messageWebhook(newPhone, { type: 'text', text: { body: 'my new phone' } }));
      expect((await threadOf(id)).map((message) => message.text)).toEqual([
        'my new phone',
        `User Sheena Nelson changed from ${oldPhone.slice(1)} to ${newPhone}`,
        'hello from my old phone',
      ]);
      expect((await conversationOf(`+${newPhone}`)).map((c) => c.id)).toEqual([id]);
    });

    it('neither reopens a closed thread nor opens the 24-hour window', async () => {
      const { id, phone: oldPhone } = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 25 * 3600 });
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'closed' } });
      await deliver(numberChangeWebhook(oldPhone.slice(1), newCustomer()));
      expect((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body.status).toBe('closed');
      const refused = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'text', text: 'hi' } });
      expect(refused.status).toBe(422);
    });

    it('keeps both contacts when another one has the new number already, the notice in the old thread', async () => {
      const old = await customerWrites(t, { text: 'old number' });
      const taken = await customerWrites(t, { text: 'new number, already known' });
      await deliver(numberChangeWebhook(old.phone.slice(1), taken.phone.slice(1)));
      expect((await t.request('GET', `/api/v1/conversations/${old.id}`, { token: admin })).body.customer.phone).toBe(old.phone);
      expect((await threadOf(old.id)).map((message) => message.type)).toEqual(['system', 'text']);
      expect(await threadOf(taken.id)).toHaveLength(1);
      expect(t.logs.some((line) => String(line.msg).includes(`which another contact has already: both kept`))).toBe(true);
    });
  });

  describe('statuses of outbound messages', () => {
    const sendAndWaitSent = async () => {
      const { id, phone: e164 } = await customerWrites(t);
      const sent = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
        token: admin,
        body: { type: 'text', text: 'status me' },
      });
      const wamid = await eventually(async () => {
        const channelId = await channelIdOf(sent.body.id);
        expect(channelId).toEqual(expect.any(String));
        return channelId!;
      });
      const current = async () => (await threadOf(id)).find((message) => message.id === sent.body.id)!;
      return { id, recipient: e164.slice(1), messageId: sent.body.id as string, wamid, current };
    };

    it('moves a voice message on to played, keeping the pricing (category, type, model), and never back', async () => {
      const { recipient, wamid, messageId, current } = await sendAndWaitSent();
      await deliver(statusWebhook(wamid, recipient, 'delivered', { category: 'utility' }));
      expect(await current()).toMatchObject({
        status: 'delivered',
        pricing_category: 'utility',
        pricing_type: 'regular',
        pricing_model: 'PMP',
      });
      await deliver(statusWebhook(wamid, recipient, 'played'));
      await deliver(statusWebhook(wamid, recipient, 'read', { category: 'utility' }));
      expect(await current()).toMatchObject({ status: 'played', pricing_category: 'utility' });
      const statuses = (await t.events('message.status')).filter((event) => event.data.message.id === messageId);
      expect(statuses.map((event) => event.data.message.status)).toEqual(['sent', 'delivered', 'played']);
      expect(statuses[2].data.message.pricing_category).toBe('utility');
    });

    it('keeps a pricing that arrives on a late status that does not move the message', async () => {
      const { recipient, wamid, current } = await sendAndWaitSent();
      await deliver(statusWebhook(wamid, recipient, 'read'));
      expect(await current()).toMatchObject({ status: 'read', pricing_category: null, pricing_type: null, pricing_model: null });
      await deliver(statusWebhook(wamid, recipient, 'delivered', { category: 'marketing', pricingType: 'free_entry_point' }));
      expect(await current()).toMatchObject({
        status: 'read',
        pricing_category: 'marketing',
        pricing_type: 'free_entry_point',
        pricing_model: 'PMP',
      });
    });

    it("marks a message failed with the channel's error code and title", async () => {
      const { recipient, wamid, current } = await sendAndWaitSent();
      const errors = [
        {
          code: 131050,
          title:
            'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business',
          message: 'Unable to deliver the message.',
          error_data: { details: 'The user opted out of marketing messages.' },
        },
      ];
      await deliver(statusWebhook(wamid, recipient, 'failed', { errors }));
      expect(await current()).toMatchObject({
        status: 'failed',
        error: `(#131050) ${errors[0].title}: The user opted out of marketing messages.`,
      });
    });
  });

  describe("a change's own errors", () => {
    it('logs them and keeps them for admins at GET /api/v1/inbound/errors, newest first', async () => {
      expect(await deliver(changeErrorsWebhook())).toEqual({ messages: 0, statuses: 0 });
      expect(t.logs.some((line) => String(line.msg).includes('the channel reported an error: (#131000) Something went wrong'))).toBe(true);
      await deliver(changeErrorsWebhook());
      const list = await t.request('GET', '/api/v1/inbound/errors?limit=1', { token: admin });
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([
        {
          id: expect.stringMatching(/^ibe_[0-9a-f]{32}$/),
          received_at: expect.any(String),
          code: 131000,
          title: 'Something went wrong',
          details: 'Message failed to send because of an unknown error.',
          error: (
            (
              ((changeErrorsWebhook().entry as Record<string, unknown>[])[0].changes as Record<string, unknown>[])[0].value as Record<
                string,
                unknown
              >
            ).errors as unknown[]
          )[0],
        },
      ]);
      const next = await t.request('GET', `/api/v1/inbound/errors?limit=1&cursor=${String(list.body.next_cursor)}`, { token: admin });
      expect(next.body.data).toHaveLength(1);
      expect(next.body.data[0].id).not.toBe(list.body.data[0].id);
      const agent = await t.createUser({ role: 'agent' });
      expect((await t.request('GET', '/api/v1/inbound/errors', { token: agent.token })).status).toBe(403);
    });

    it('serves the list from channel_errors_received_idx, in order, on every page', async () => {
      await deliver(changeErrorsWebhook());
      await deliver(changeErrorsWebhook());
      const plan = async (cursor?: string) =>
        t.app.get(DataSource).transaction(async (manager) => {
          const { text, values } = t.app.get(ChannelErrorRepository).listStatement(Object.assign(new PageQuery(), { cursor })).compile();
          await manager.query('SET LOCAL enable_seqscan = off');
          const rows: Record<string, string>[] = await manager.query(`EXPLAIN ${text}`, values);
          return rows.map((row) => row['QUERY PLAN']).join('\n');
        });
      const first = await t.request('GET', '/api/v1/inbound/errors?limit=1', { token: admin });
      for (const cursor of [undefined, String(first.body.next_cursor)]) {
        const explained = await plan(cursor);
        expect(explained).toMatch(/Index Scan using channel_errors_received_idx/);
        expect(explained).not.toMatch(/Sort|Seq Scan/);
      }
    });
  });
});

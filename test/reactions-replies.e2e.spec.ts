import { parsePublicId } from '../src/common/ids';
import { ReactionRepository } from '../src/conversations/reaction.repository';
import { Database } from '../src/database/database';
import { query, sql } from '../src/database/sql';
import { eventually, newWamid } from './support/channel';
import { messageWebhook, reactionWebhook } from './support/channel-fixtures';
import { FakeGraphApi } from './support/fake-graph-api';
import { TEST_DATABASE_URL } from './support/environment';
import { customerWrites } from './support/inbox';
import { explainKept, plansOf } from './support/kept-plans';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

describe('reactions and replies, both ways', () => {
  let graph: FakeGraphApi;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let admin: string;
  let adminId: string;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      env: {
        ...graph.channelEnv,
        MESSAGING_RETRY_SCHEDULE: '50ms',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '50ms',
      },
    });
    admin = await t.adminToken();
    adminId = (await t.request('GET', '/api/v1/me', { token: admin })).body.id;
    const registered = await t.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: receiver.url('/reactions'), events: ['message.reaction'], secret: 'reactions-webhook-secret' },
    });
    expect(registered.status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
    await receiver.close();
  });

  const deliver = async (body: unknown) => {
    const answer = await t.request('POST', '/api/webhooks/messaging', { body });
    expect(answer.status).toBe(200);
    return answer.body as { messages: number };
  };
  const post = (conversationId: string, body: unknown, token = admin) =>
    t.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token, body });
  const threadOf = async (conversationId: string) =>
    (await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin })).body.data as Record<string, unknown>[];
  const channelIdOf = async (messageId: string) =>
    (
      await t.sql<{ channel_message_id: string | null }>('SELECT channel_message_id FROM messages WHERE id::text = $1', [
        parsePublicId('msg', messageId)!,
      ])
    )[0].channel_message_id;
  const sentChannelId = (messageId: string) =>
    eventually(async () => {
      const channelId = await channelIdOf(messageId);
      expect(channelId).toEqual(expect.any(String));
      return channelId!;
    });
  /** A customer who wrote once: their conversation, their message and its wamid. */
  const customerWithMessage = async (text = 'Can you help?') => {
    const { id, phone } = await customerWrites(t, { text });
    const [message] = await threadOf(id);
    return { id, phone, from: phone.slice(1), message, wamid: (await channelIdOf(message.id as string))! };
  };

  describe("the customer's reactions", () => {
    it('attach to the message reacted to: added, changed, removed, never a message of their own', async () => {
      const { id, from } = await customerWithMessage();
      const sent = await post(id, { type: 'text', text: 'Your order has shipped' });
      const wamid = await sentChannelId(sent.body.id);
      const reactionsNow = async () => (await threadOf(id)).find((m) => m.id === sent.body.id)!.reactions;

      expect(await deliver(reactionWebhook(from, wamid, '👍'))).toEqual({ messages: 0, statuses: 0 });
      expect(await reactionsNow()).toEqual([{ emoji: '👍', by: 'customer', created_at: expect.any(String) }]);
      await deliver(reactionWebhook(from, wamid, '❤️'));
      expect(await reactionsNow()).toEqual([{ emoji: '❤️', by: 'customer', created_at: expect.any(String) }]);
      // The channel sends a removal without an emoji.
      await deliver(reactionWebhook(from, wamid));
      expect(await reactionsNow()).toEqual([]);
      expect((await threadOf(id)).map((m) => m.type)).toEqual(['text', 'text']);

      const events = (await t.events('message.reaction')).filter((e) => e.data.message.id === sent.body.id);
      expect(events.map((e) => e.data.reaction)).toEqual([
        { emoji: '👍', by: 'customer', created_at: expect.any(String) },
        { emoji: '❤️', by: 'customer', created_at: expect.any(String) },
        { emoji: '', by: 'customer', created_at: expect.any(String) },
      ]);
      expect(events[1].data.message).toMatchObject({ id: sent.body.id, reactions: [{ emoji: '❤️', by: 'customer' }] });
    });

    it('ignore a redelivered reaction older than the one attached', async () => {
      const { id, from } = await customerWithMessage();
      const sent = await post(id, { type: 'text', text: 'Rate us?' });
      const wamid = await sentChannelId(sent.body.id);
      const now = Math.floor(Date.now() / 1000);
      const first = reactionWebhook(from, wamid, '👍', { id: newWamid(), timestamp: now - 10 });
      await deliver(first);
      await deliver(reactionWebhook(from, wamid, '😡', { timestamp: now }));
      await deliver(first);
      expect((await threadOf(id)).find((m) => m.id === sent.body.id)!.reactions).toEqual([expect.objectContaining({ emoji: '😡' })]);
      expect((await t.events('message.reaction')).filter((e) => e.data.message.id === sent.body.id)).toHaveLength(2);
    });

    it("are stored as a message of type reaction when the message is not this customer's", async () => {
      const other = await customerWithMessage();
      const { id, from } = await customerWithMessage();
      expect(await deliver(reactionWebhook(from, other.wamid, '👍'))).toEqual({ messages: 1, statuses: 0 });
      expect((await threadOf(id))[0]).toMatchObject({ type: 'reaction', text: '👍', content: { message_id: other.wamid, emoji: '👍' } });
      expect((await threadOf(other.id))[0].reactions).toEqual([]);
    });

    it('reach webhook registrations as message.reaction', async () => {
      const { id, from } = await customerWithMessage();
      const sent = await post(id, { type: 'text', text: 'Webhook me' });
      await deliver(reactionWebhook(from, await sentChannelId(sent.body.id), '🎉'));
      const delivery = await eventually(async () => {
        const found = receiver.received('/reactions').find((d) => d.json.data.message.id === sent.body.id);
        expect(found).toBeDefined();
        return found!;
      });
      expect(delivery.json).toMatchObject({
        type: 'message.reaction',
        data: { message: { id: sent.body.id, reactions: [{ emoji: '🎉', by: 'customer' }] }, reaction: { emoji: '🎉', by: 'customer' } },
      });
    });
    (TEST_DATABASE_URL ? it : it.skip)(
      'are read for a page by a statement each connection keeps on PostgreSQL, whose plan without the ids walks the key',
      async () => {
        const { id } = await customerWithMessage();
        // Enough reactions that the key is the planner's choice over reading the table whole.
        const messageIds = (
          await t.sql<{ id: string }>(
            `INSERT INTO messages (id, conversation_id, direction, type, text, status, created_at, updated_at)
             SELECT gen_random_uuid(), $1, 'inbound', 'text', 'm' || i, 'received', now(), now() FROM generate_series(1, 3000) i RETURNING id::text`,
            [parsePublicId('conv', id)],
          )
        ).map((row) => row.id);
        await t.sql(
          `INSERT INTO message_reactions (message_id, reactor, emoji, created_at) SELECT m, 'customer', '👍', now() FROM unnest($1::uuid[]) m`,
          [messageIds],
        );
        await t.sql('VACUUM ANALYZE message_reactions');
        const reactions = t.app.get(ReactionRepository);
        const pages = [messageIds.slice(0, 26), messageIds.slice(100, 101), messageIds.slice(200, 300)];
        const kept = await t.app.get(Database).transaction(async (db) => {
          for (const page of pages) {
            expect((await reactions.forMessages(db, page)).map((reaction) => reaction.message_id).sort()).toEqual([...page].sort());
          }
          const statement = reactions.forMessagesStatement(pages[0]);
          // The plan PostgreSQL keeps once it stops planning with the ids (when it costs no more than those it made with them).
          await query(db, sql.raw('SET LOCAL plan_cache_mode = force_generic_plan'));
          return { prepared: await plansOf(db, statement), plan: await explainKept(db, statement) };
        });
        expect(kept.prepared).toHaveLength(1);
        expect(kept.plan).toMatch(/Index Scan (using|on) message_reactions_pkey/);
        expect(kept.plan).not.toContain('Seq Scan');
      },
    );
  });

  describe("an agent's reactions", () => {
    it('attach to the customer’s message and go to the channel as a reaction: added, changed, removed', async () => {
      const { id, phone, message, wamid } = await customerWithMessage();
      const react = (emoji: string) => post(id, { type: 'reaction', reaction: { message_id: message.id, emoji } });

      const added = await react('👍');
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({ id: message.id, reactions: [{ emoji: '👍', by: adminId, created_at: expect.any(String) }] });
      await eventually(async () => expect(graph.reactionsTo(phone)).toHaveLength(1));
      expect(graph.reactionsTo(phone)[0].body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: phone.slice(1),
        type: 'reaction',
        reaction: { message_id: wamid, emoji: '👍' },
      });

      expect((await react('🙏')).body.reactions).toEqual([{ emoji: '🙏', by: adminId, created_at: expect.any(String) }]);
      await eventually(async () => expect(graph.reactionsTo(phone)).toHaveLength(2));
      expect((await react('')).body.reactions).toEqual([]);
      await eventually(async () => expect(graph.reactionsTo(phone)).toHaveLength(3));
      expect(graph.reactionsTo(phone).map((r) => (r.body!.reaction as { emoji: string }).emoji)).toEqual(['👍', '🙏', '']);
      // Not a message of the thread.
      expect((await threadOf(id)).map((m) => m.id)).toEqual([message.id]);
      const events = (await t.events('message.reaction')).filter((e) => e.data.message.id === message.id);
      expect(events.map((e) => e.data.reaction.emoji)).toEqual(['👍', '🙏', '']);
      expect(events.every((e) => e.data.reaction.by === adminId)).toBe(true);
    });

    it('keep one reaction per reactor: the customer’s and each agent’s side by side', async () => {
      const { id, from, message, wamid } = await customerWithMessage();
      const agent = await t.createUser({ role: 'agent' });
      await post(id, { type: 'reaction', reaction: { message_id: message.id, emoji: '👍' } });
      await post(id, { type: 'reaction', reaction: { message_id: message.id, emoji: '👀' } }, agent.token);
      // A customer may react to their own message too.
      await deliver(reactionWebhook(from, wamid, '😀'));
      expect((await threadOf(id))[0].reactions).toEqual([
        { emoji: '👍', by: adminId, created_at: expect.any(String) },
        { emoji: '👀', by: agent.id, created_at: expect.any(String) },
        { emoji: '😀', by: 'customer', created_at: expect.any(String) },
      ]);
    });

    it('send nothing and record nothing when the emoji does not change', async () => {
      const { id, phone, message } = await customerWithMessage();
      await post(id, { type: 'reaction', reaction: { message_id: message.id, emoji: '👌' } });
      await eventually(async () => expect(graph.reactionsTo(phone)).toHaveLength(1));
      const again = await post(id, { type: 'reaction', reaction: { message_id: message.id, emoji: '👌' } });
      expect(again.status).toBe(201);
      // A later change: by the time it is sent, a second send of the first would have gone out.
      await post(id, { type: 'reaction', reaction: { message_id: message.id, emoji: '👏' } });
      await eventually(async () =>
        expect(graph.reactionsTo(phone).map((r) => (r.body!.reaction as { emoji: string }).emoji)).toContain('👏'),
      );
      expect(graph.reactionsTo(phone).map((r) => (r.body!.reaction as { emoji: string }).emoji)).toEqual(['👌', '👏']);
      expect((await t.events('message.reaction')).filter((e) => e.data.message.id === message.id)).toHaveLength(2);
    });

    it.each([
      ['more than one emoji', '👍👍'],
      ['text', 'ok'],
      ['a number', 1],
    ])('refuse %s with 400 naming the field', async (_, emoji) => {
      const { id, message } = await customerWithMessage();
      const answer = await post(id, { type: 'reaction', reaction: { message_id: message.id, emoji } });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(/^reaction\.emoji /);
    });

    it("refuse a message of another conversation, an agent's message, and a malformed id", async () => {
      const other = await customerWithMessage();
      const { id } = await customerWithMessage();
      const foreign = await post(id, { type: 'reaction', reaction: { message_id: other.message.id, emoji: '👍' } });
      expect(foreign.status).toBe(422);
      expect(foreign.body).toEqual({ error: 'reaction.message_id does not name a message of this conversation' });
      const ours = await post(id, { type: 'text', text: 'ours' });
      const outbound = await post(id, { type: 'reaction', reaction: { message_id: ours.body.id, emoji: '👍' } });
      expect(outbound.status).toBe(422);
      expect(outbound.body.error).toMatch(/customer's message/);
      expect((await post(id, { type: 'reaction', reaction: { message_id: 'conv_1', emoji: '👍' } })).status).toBe(400);
      expect((await post(id, { type: 'reaction', reaction: { message_id: ours.body.id, emoji: '👍' }, text: 'x' })).status).toBe(422);
    });

    it('are refused outside the 24-hour window, like any free-form message', async () => {
      const { id, phone } = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 25 * 3600 });
      const [message] = await threadOf(id);
      const answer = await post(id, { type: 'reaction', reaction: { message_id: message.id, emoji: '👍' } });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ error: "The customer's last message is more than 24 hours old: reactions cannot be sent" });
      expect(graph.reactionsTo(phone)).toEqual([]);
    });

    it('are retried after a 5xx from the channel', async () => {
      const { id, phone, message } = await customerWithMessage();
      graph.failNext(phone, { status: 503, body: { error: { message: 'Service temporarily unavailable', code: 2 } } });
      await post(id, { type: 'reaction', reaction: { message_id: message.id, emoji: '🔥' } });
      await eventually(async () => {
        const [sent] = await t.sql<{ status: string; attempts: number }>(
          'SELECT status, attempts FROM reaction_sends WHERE message_id::text = $1',
          [parsePublicId('msg', message.id as string)!],
        );
        expect(sent).toEqual({ status: 'sent', attempts: 2 });
      });
      expect(graph.reactionsTo(phone)).toHaveLength(2);
    });
  });

  describe('replies by an agent', () => {
    it("send reply_to as the channel's context.message_id, and answer it on the message", async () => {
      const { id, phone, message, wamid } = await customerWithMessage('Where is order 1042?');
      const reply = await post(id, { type: 'text', text: 'On its way', reply_to: message.id });
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({ reply_to: message.id, text: 'On its way' });
      await sentChannelId(reply.body.id);
      expect(graph.sendsTo(phone)[0].body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: phone.slice(1),
        context: { message_id: wamid },
        type: 'text',
        text: { body: 'On its way', preview_url: false },
      });
      expect((await threadOf(id))[0]).toMatchObject({ id: reply.body.id, reply_to: message.id });
    });

    it("quote an agent's earlier message by its channel id, and carry the quote on media and templates too", async () => {
      const { id, phone } = await customerWithMessage();
      const first = await post(id, { type: 'text', text: 'Here is the invoice' });
      const firstWamid = await sentChannelId(first.body.id);
      const media = await post(id, { type: 'document', document: { link: 'https://cdn.example.com/a.pdf' }, reply_to: first.body.id });
      const template = await post(id, { type: 'template', template: { name: 'order_update', language: 'en_US' }, reply_to: first.body.id });
      await sentChannelId(media.body.id);
      await sentChannelId(template.body.id);
      // Sends of one conversation may reach the channel in any order.
      const contexts = Object.fromEntries(
        graph
          .sendsTo(phone)
          .slice(1)
          .map((r) => [r.body!.type, r.body!.context]),
      );
      expect(contexts).toEqual({ document: { message_id: firstWamid }, template: { message_id: firstWamid } });
    });

    it("refuse another conversation's message, and one that failed, with 422", async () => {
      const other = await customerWithMessage();
      const { id, phone } = await customerWithMessage();
      const foreign = await post(id, { type: 'text', text: 'x', reply_to: other.message.id });
      expect(foreign.status).toBe(422);
      expect(foreign.body).toEqual({ error: 'reply_to does not name a message of this conversation' });
      expect((await post(id, { type: 'text', text: 'x', reply_to: 'msg_00000000000070008000000000000000' })).status).toBe(422);
      expect((await post(id, { type: 'text', text: 'x', reply_to: 'nope' })).status).toBe(400);

      graph.failNext(phone, { status: 400, body: { error: { message: 'Invalid parameter', code: 100 } } });
      const doomed = await post(id, { type: 'text', text: 'doomed' });
      await eventually(async () => expect((await threadOf(id)).find((m) => m.id === doomed.body.id)!.status).toBe('failed'));
      const toFailed = await post(id, { type: 'text', text: 'x', reply_to: doomed.body.id });
      expect(toFailed.status).toBe(422);
      expect(toFailed.body).toEqual({ error: 'reply_to names a message that failed to reach the customer' });
    });

    it('send a reply to a message still in flight without the quote: the quoted one has no channel id yet', async () => {
      const { id, phone } = await customerWithMessage();
      // Every send takes 1.5 s: the reply is claimed while the message it quotes is still on its way.
      graph.sendDelayMs = 1500;
      try {
        const slow = await post(id, { type: 'text', text: 'slow' });
        await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(1));
        const reply = await post(id, { type: 'text', text: 'quick', reply_to: slow.body.id });
        expect(reply.body.reply_to).toBe(slow.body.id);
        await sentChannelId(reply.body.id);
        const quick = graph.sendsTo(phone).find((r) => (r.body!.text as { body: string }).body === 'quick')!;
        expect(quick.body!.context).toBeUndefined();
        expect((await threadOf(id)).find((m) => m.id === reply.body.id)!.reply_to).toBe(slow.body.id);
      } finally {
        graph.sendDelayMs = 0;
      }
    });
  });

  it('customers quoting a message: reply_to on the inbound message', async () => {
    const { id, from, message, wamid } = await customerWithMessage();
    await deliver(messageWebhook(from, { type: 'text', context: { from, id: wamid }, text: { body: 'to add to that' } }));
    expect((await threadOf(id))[0]).toMatchObject({ text: 'to add to that', reply_to: message.id });
  });
});

import { eventually } from './support/channel';
import { createConversation } from './support/factories';
import { FakeGraphApi } from './support/fake-graph-api';
import { asInEvents, customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { toPublicId } from '../src/common/ids';

describe('private notes', () => {
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
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      },
    });
    admin = await t.adminToken();
    adminId = (await t.request('GET', '/api/v1/me', { token: admin })).body.id as string;
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
    await receiver.close();
  });

  const addNote = (conversationId: string, body: unknown, token = admin) =>
    t.request('POST', `/api/v1/conversations/${conversationId}/notes`, { token, body });
  const thread = async (conversationId: string) =>
    (await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin })).body.data as {
      id: string;
      direction: string;
      text: string;
      status: string;
    }[];

  it('answers 201 with a message of type note, direction internal, sent_by the caller and its mentions', async () => {
    const { id } = await customerWrites(t);
    const colleague = await t.createUser();
    const answer = await addNote(id, { text: 'She was promised a refund', mentions: [colleague.id] });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      conversation_id: id,
      direction: 'internal',
      type: 'note',
      text: 'She was promised a refund',
      content: { mentions: [colleague.id] },
      reply_to: null,
      reactions: [],
      media: null,
      referral: null,
      pricing_category: null,
      pricing_type: null,
      pricing_model: null,
      from: null,
      status: 'sent',
      error: null,
      sent_by: adminId,
      automated: false,
      created_at: expect.stringMatching(/Z$/),
    });
  });

  it('shows notes in the thread among the messages, newest first', async () => {
    const { id, phone } = await customerWrites(t, { text: 'Where is my order?' });
    const note = await addNote(id, { text: 'Checking with the warehouse' });
    await customerWrites(t, { phone: phone.slice(1), text: 'Hello?' });
    expect((await thread(id)).map((m) => [m.direction, m.text])).toEqual([
      ['inbound', 'Hello?'],
      ['internal', 'Checking with the warehouse'],
      ['inbound', 'Where is my order?'],
    ]);
    expect((await thread(id))[1]).toEqual(note.body);
  });

  it('never sends a note to the channel: the reply sent after it is the only request the Graph API gets', async () => {
    const { id, phone } = await customerWrites(t);
    await addNote(id, { text: 'Internal: do not send' });
    const reply = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
      token: admin,
      body: { type: 'text', text: 'On its way' },
    });
    expect(reply.status).toBe(201);
    await eventually(async () => expect((await thread(id)).find((m) => m.id === reply.body.id)?.status).toBe('sent'));
    const sends = graph.sendsTo(phone);
    expect(sends).toHaveLength(1);
    expect(JSON.stringify(sends[0].body)).toContain('On its way');
    expect((await thread(id)).find((m) => m.direction === 'internal')).toMatchObject({ text: 'Internal: do not send', status: 'sent' });
  });

  it('leaves the conversation as it was: its status, its place in the list and the 24-hour window', async () => {
    const dayAndMore = new Date(Date.now() - 25 * 3600_000);
    const row = await createConversation(t, { status: 'closed', last_message_at: dayAndMore, last_inbound_at: dayAndMore });
    const id = toPublicId('conv', row.id);
    const before = (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body;
    expect((await addNote(id, { text: 'Closed for good' })).status).toBe(201);
    expect((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body).toEqual(before);
    const text = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'text', text: 'Hi' } });
    expect(text.status).toBe(422);
    expect(await thread(id)).toHaveLength(1);
  });

  it('leaves a snoozed conversation snoozed', async () => {
    const { id } = await customerWrites(t);
    const until = new Date(Date.now() + 3600_000).toISOString();
    await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'snoozed', snoozed_until: until } });
    await addNote(id, { text: 'Waiting for the courier' });
    expect((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body).toMatchObject({
      status: 'snoozed',
      snoozed_until: until,
    });
  });

  it('notifies each mentioned user with a mention notification, once, and not the author', async () => {
    const { id } = await customerWrites(t, { name: 'Ines' });
    const [first, second] = [await t.createUser(), await t.createUser()];
    const author = await t.createUser({ name: 'Paula' });
    const answer = await addNote(
      id,
      { text: 'Can one of you call her?', mentions: [first.id, second.id, first.id, author.id] },
      author.token,
    );
    expect(answer.status).toBe(201);
    expect(answer.body.content).toEqual({ mentions: [first.id, second.id, author.id] });
    for (const user of [first, second]) {
      const notifications = await t.request('GET', '/api/v1/notifications', { token: user.token });
      expect(notifications.body.data).toEqual([
        expect.objectContaining({
          type: 'mention',
          conversation_id: id,
          text: 'Paula mentioned you in a note on the conversation with Ines',
        }),
      ]);
    }
    expect((await t.request('GET', '/api/v1/notifications', { token: author.token })).body.data).toEqual([]);
  });

  it('records note.created with the message and the conversation, and delivers it to a webhook subscribed to it', async () => {
    const registered = await t.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: receiver.url('/notes'), events: ['note.created', 'conversation.updated'], secret: 'a-receiver-secret-of-some-length' },
    });
    expect(registered.status).toBe(201);
    const { id } = await customerWrites(t);
    const note = await addNote(id, { text: 'For the record' });
    const conversation = asInEvents((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body);
    const events = (await t.events('note.created')).filter((event) => event.data.message.id === note.body.id);
    expect(events.map((event) => event.data)).toEqual([{ message: note.body, conversation }]);
    const delivered = await eventually(async () => {
      const deliveries = receiver
        .received('/notes')
        .filter((d) => d.json.type === 'note.created' && d.json.data.message.id === note.body.id);
      expect(deliveries).toHaveLength(1);
      return deliveries[0];
    });
    expect(delivered.json.data).toEqual({ message: note.body, conversation });
  });

  it.each([
    ['an unknown user', 'user_0000000000007000800000000000000a'],
    ['an id that is not a user id', 'ct_0000000000007000800000000000000a'],
  ])('refuses a mention of %s with 422 naming it, storing nothing', async (_, mention) => {
    const { id } = await customerWrites(t);
    const colleague = await t.createUser();
    const events = (await t.events()).length;
    const answer = await addNote(id, { text: 'Hm', mentions: [colleague.id, mention] });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: `mentions: ${mention} does not name a user` });
    expect((await thread(id)).filter((m) => m.direction === 'internal')).toEqual([]);
    expect((await t.request('GET', '/api/v1/notifications', { token: colleague.token })).body.data).toEqual([]);
    expect((await t.events()).length).toBe(events);
  });

  it.each([
    ['no text', { mentions: [] }, /^text /],
    ['an empty text', { text: '' }, /^text is required/],
    ['a text over 4096 characters', { text: 'x'.repeat(4097) }, /^text must be at most 4096 characters/],
    ['mentions that are not an array', { text: 'Hi', mentions: 'user_x' }, 'mentions must be a list'],
    ['a mention that is not a string', { text: 'Hi', mentions: [1] }, 'mentions must contain only user ids'],
    ['an unknown field', { text: 'Hi', private: true }, 'private is not a known field'],
  ])('refuses %s with 400', async (_, body, message) => {
    const { id } = await customerWrites(t);
    const answer = await addNote(id, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  });

  it('answers 404 for a note on an unknown conversation', async () => {
    const answer = await addNote('conv_0000000000007000800000000000000a', { text: 'Hi' });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Conversation not found' });
  });

  it('lets an agent add notes', async () => {
    const { id } = await customerWrites(t);
    const agent = await t.createUser({ role: 'agent' });
    const answer = await addNote(id, { text: 'Mine' }, agent.token);
    expect(answer.status).toBe(201);
    expect(answer.body.sent_by).toBe(agent.id);
  });
});

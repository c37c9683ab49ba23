import { randomInt } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { messagesWebhook } from '../scripts/lib/channel-webhook';
import { channelMessage, channelStatus, eventually, newWamid } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Customers the channel knows by a business-scoped user id (since April 2026 on every webhook),
 * some of them without a phone: how they are matched, linked, moved, answered and listed.
 */
describe('customers identified by the channel user id', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({ env: { ...graph.channelEnv, MESSAGING_RETRY_SCHEDULE: '50ms' } });
    admin = await t.adminToken();
  });
  afterEach(() => graph.reset());
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const newUserId = () => `US.${randomInt(1e9, 1e10)}${randomInt(1e9, 1e10)}`;
  const newPhone = () => `1415${randomInt(2_000_000, 10_000_000)}`;

  /** One message of a customer through the webhook: `from` only when a phone is given, the contacts entry as the channel writes it. */
  async function customerWrites(customer: { phone?: string; userId?: string; username?: string; name?: string }, message = {}) {
    const body = messagesWebhook({
      contacts: [
        {
          ...(customer.phone ? { wa_id: customer.phone } : {}),
          ...(customer.userId ? { user_id: customer.userId } : {}),
          profile: { name: customer.name ?? 'Customer', ...(customer.username ? { username: customer.username } : {}) },
        },
      ],
      messages: [
        {
          ...channelMessage({ payload: { body: 'Hello' } }),
          from: customer.phone,
          ...(customer.userId ? { from_user_id: customer.userId } : {}),
          ...message,
        },
      ],
    });
    const answer = await t.request('POST', '/api/webhooks/messaging', { body });
    expect(answer.status).toBe(200);
  }
  const contactsMatching = async (q: string) =>
    (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(q)}`, { token: admin })).body.data;
  const conversationsMatching = async (q: string) =>
    (await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(q)}`, { token: admin })).body.data;

  it('stores the message of a customer without a phone, their contact keyed by user id with the username, shown by name', async () => {
    const userId = newUserId();
    await customerWrites({ userId, username: 'maria.nophone', name: 'Maria' });
    const [contact] = await contactsMatching('maria.nophone');
    expect(contact).toMatchObject({ phone: null, wa_user_id: userId, username: 'maria.nophone', name: 'Maria' });
    const [conversation] = await conversationsMatching('maria.nophone');
    expect(conversation.customer).toEqual({ name: 'Maria', phone: null, wa_user_id: userId, username: 'maria.nophone' });
    const thread = await t.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: admin });
    expect(thread.body.data).toEqual([expect.objectContaining({ direction: 'inbound', text: 'Hello', from: null })]);
  });

  it('shows the username as the customer name when the profile has no name', async () => {
    const userId = newUserId();
    const body = messagesWebhook({
      contacts: [{ user_id: userId, profile: { username: 'quiet.one' } }],
      messages: [{ ...channelMessage(), from: undefined, from_user_id: userId }],
    });
    expect((await t.request('POST', '/api/webhooks/messaging', { body })).status).toBe(200);
    const [conversation] = await conversationsMatching('quiet.one');
    expect(conversation.customer).toMatchObject({ name: 'quiet.one', phone: null });
  });

  it('answers a customer known only by user id with "recipient" instead of "to"', async () => {
    const userId = newUserId();
    await customerWrites({ userId, username: 'reply.me' });
    const [conversation] = await conversationsMatching('reply.me');
    const sent = await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
      token: admin,
      body: { type: 'text', text: 'How can we help?' },
    });
    expect(sent.status).toBe(201);
    const [request] = await eventually(async () => {
      const sends = graph.sendsTo(userId);
      expect(sends).toHaveLength(1);
      return sends;
    });
    expect(request.body).toMatchObject({ recipient: userId, type: 'text', text: { body: 'How can we help?' } });
    expect(request.body).not.toHaveProperty('to');
    // Its statuses come back by the message's id, with the user id as recipient_user_id.
    const message = await eventually(async () => {
      const thread = await t.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: admin });
      expect(thread.body.data[0].status).toBe('sent');
      return thread.body.data[0] as { id: string };
    });
    const wamid = (
      await t.sql<{ channel_message_id: string }>(
        `SELECT channel_message_id FROM messages WHERE conversation_id = (SELECT id FROM conversations ORDER BY created_at DESC LIMIT 1)
         AND direction = 'outbound'`,
      )
    )[0].channel_message_id;
    const status = { ...channelStatus(wamid, 'delivered'), recipient_user_id: userId };
    expect((await t.request('POST', '/api/webhooks/messaging', { body: messagesWebhook({ statuses: [status] }) })).status).toBe(200);
    const thread = await t.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: admin });
    expect(thread.body.data.find((m) => m.id === message.id)?.status).toBe('delivered');
  });

  it('still answers a customer with a phone by "to", with their user id kept beside it', async () => {
    const phone = newPhone();
    const userId = newUserId();
    await customerWrites({ phone, userId });
    const [conversation] = await conversationsMatching(`+${phone}`);
    expect(conversation.customer).toMatchObject({ phone: `+${phone}`, wa_user_id: userId });
    await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, { token: admin, body: { type: 'text', text: 'Hi' } });
    const [request] = await eventually(async () => {
      const sends = graph.sendsTo(`+${phone}`);
      expect(sends).toHaveLength(1);
      return sends;
    });
    expect(request.body).toMatchObject({ to: phone });
    expect(request.body).not.toHaveProperty('recipient');
  });

  it('links a phone contact to its user id when a message brings both, never making a second contact', async () => {
    const phone = newPhone();
    const made = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: `+${phone}`, name: 'Known By Phone' } });
    expect(made.body.wa_user_id).toBeNull();
    const userId = newUserId();
    await customerWrites({ phone, userId, username: 'linked.user' });
    const contact = await t.request('GET', `/api/v1/contacts/${made.body.id}`, { token: admin });
    expect(contact.body).toMatchObject({ phone: `+${phone}`, wa_user_id: userId, username: 'linked.user', name: 'Known By Phone' });
    // The next message without the phone finds the same contact and conversation.
    await customerWrites({ userId, username: 'linked.user' }, { text: { body: 'Again' } });
    expect(await contactsMatching('linked.user')).toHaveLength(1);
    const conversations = await conversationsMatching('linked.user');
    expect(conversations).toHaveLength(1);
    expect(conversations[0].last_message?.text).toBe('Again');
  });

  it('gives a contact known only by id the phone a later message shares', async () => {
    const userId = newUserId();
    await customerWrites({ userId, username: 'phone.later' });
    const phone = newPhone();
    await customerWrites({ phone, userId, username: 'phone.later' });
    const found = await contactsMatching('phone.later');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ phone: `+${phone}`, wa_user_id: userId });
    expect(await conversationsMatching('phone.later')).toHaveLength(1);
  });

  it('moves the contact to its new user id on user_changed_user_id, keeping its one thread', async () => {
    const oldId = newUserId();
    await customerWrites({ userId: oldId, username: 'id.mover' });
    const newId = newUserId();
    const body = messagesWebhook({
      messages: [
        {
          from_user_id: newId,
          id: newWamid(),
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'system',
          system: { body: 'User id.mover changed their user id', type: 'user_changed_user_id', previous_user_id: oldId, user_id: newId },
        },
      ],
    });
    expect((await t.request('POST', '/api/webhooks/messaging', { body })).status).toBe(200);
    const [contact] = await contactsMatching('id.mover');
    expect(contact.wa_user_id).toBe(newId);
    await customerWrites({ userId: newId, username: 'id.mover' }, { text: { body: 'After the change' } });
    const conversations = await conversationsMatching('id.mover');
    expect(conversations).toHaveLength(1);
    const thread = await t.request('GET', `/api/v1/conversations/${conversations[0].id}/messages`, { token: admin });
    expect(thread.body.data.map((m) => [m.type, m.text])).toEqual([
      ['text', 'After the change'],
      ['system', 'User id.mover changed their user id'],
      ['text', 'Hello'],
    ]);
  });

  it("attaches a reaction of a customer known only by id to the agent's message", async () => {
    const userId = newUserId();
    await customerWrites({ userId, username: 'reacts.here' });
    const [conversation] = await conversationsMatching('reacts.here');
    await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, { token: admin, body: { type: 'text', text: 'Done!' } });
    const wamid = await eventually(async () => {
      const [row] = await t.sql<{ channel_message_id: string | null }>(
        `SELECT m.channel_message_id FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN contacts ct ON ct.id = c.contact_id
          WHERE ct.wa_user_id = $1 AND m.direction = 'outbound'`,
        [userId],
      );
      expect(row.channel_message_id).not.toBeNull();
      return row.channel_message_id!;
    });
    await customerWrites({ userId }, { type: 'reaction', text: undefined, reaction: { message_id: wamid, emoji: '👍' } });
    const thread = await t.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: admin });
    expect(thread.body.data.map((m: { type: string }) => m.type)).toEqual(['text', 'text']);
    expect(thread.body.data[0].reactions).toEqual([expect.objectContaining({ emoji: '👍', by: 'customer' })]);
  });

  it("merges a contact known only by id into a phone contact, which takes the other's user id and username", async () => {
    const userId = newUserId();
    await customerWrites({ userId, username: 'merged.away', name: 'Merged Away' });
    const [fromContact] = await contactsMatching('merged.away');
    const phone = newPhone();
    const into = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: `+${phone}`, name: 'Merge Target' } });
    const merged = await t.request('POST', `/api/v1/contacts/${into.body.id}/merge`, { token: admin, body: { from: fromContact.id } });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ id: into.body.id, phone: `+${phone}`, wa_user_id: userId, username: 'merged.away' });
    // The customer's next message, by id only, reaches the merged contact's one conversation.
    await customerWrites({ userId, username: 'merged.away' }, { text: { body: 'After the merge' } });
    const conversations = await conversationsMatching('Merge Target');
    expect(conversations).toHaveLength(1);
    expect(conversations[0].last_message?.text).toBe('After the merge');
  });

  it('gives a customer known only by id the number of their user_changed_number, as a notice that reopens nothing', async () => {
    const userId = newUserId();
    await customerWrites({ userId, username: 'number.later' });
    const [conversation] = await conversationsMatching('number.later');
    await t.request('PATCH', `/api/v1/conversations/${conversation.id}`, { token: admin, body: { status: 'closed' } });
    const phone = newPhone();
    const body = messagesWebhook({
      messages: [
        {
          from_user_id: userId,
          id: newWamid(),
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'system',
          system: { body: 'User number.later changed their number', type: 'user_changed_number', wa_id: phone },
        },
      ],
    });
    expect((await t.request('POST', '/api/webhooks/messaging', { body })).status).toBe(200);
    expect((await contactsMatching('number.later'))[0]).toMatchObject({ phone: `+${phone}`, wa_user_id: userId });
    const after = await t.request('GET', `/api/v1/conversations/${conversation.id}`, { token: admin });
    expect(after.body).toMatchObject({ status: 'closed', last_message: { type: 'system' } });
  });

  it("refuses to change a blocked contact's user id (the channel's block names it), and changes its name", async () => {
    const userId = newUserId();
    await customerWrites({ userId, username: 'blocked.by.id' });
    const [contact] = await contactsMatching('blocked.by.id');
    expect((await t.request('POST', `/api/v1/contacts/${contact.id}/block`, { token: admin })).status).toBe(200);
    expect(graph.blocked.has(userId)).toBe(true);
    const moved = await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token: admin, body: { wa_user_id: newUserId() } });
    expect(moved.status).toBe(409);
    const renamed = await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token: admin, body: { name: 'Still Blocked' } });
    expect(renamed.body).toMatchObject({ name: 'Still Blocked', wa_user_id: userId, blocked: true });
  });

  it('creates a contact through the API with a user id and no phone, and refuses one with neither', async () => {
    const userId = newUserId();
    const made = await t.request('POST', '/api/v1/contacts', { token: admin, body: { wa_user_id: userId, name: 'No Phone' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ phone: null, wa_user_id: userId, username: null, name: 'No Phone' });
    const again = await t.request('POST', '/api/v1/contacts', { token: admin, body: { wa_user_id: userId } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'A contact with this wa_user_id already exists' });
    const neither = await t.request('POST', '/api/v1/contacts', { token: admin, body: { name: 'Nobody' } });
    expect(neither.status).toBe(400);
    expect(neither.body.error).toMatch(/^phone must be a phone number/);
    const malformed = await t.request('POST', '/api/v1/contacts', { token: admin, body: { wa_user_id: '13491208655302741918' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^wa_user_id must be the channel's business-scoped user id/);
  });

  it('exports the user id in a wa_user_id column and imports a line known only by it', async () => {
    const userId = newUserId();
    await t.request('POST', '/api/v1/contacts', { token: admin, body: { wa_user_id: userId, name: 'Csv Nophone' } });
    const exported = await t.request('GET', `/api/v1/contacts/export?q=${encodeURIComponent('Csv Nophone')}`, { token: admin });
    const [header, row] = parse(exported.text) as string[][];
    expect(header.slice(0, 5)).toEqual(['phone', 'name', 'email', 'tags', 'wa_user_id']);
    expect(row.slice(0, 5)).toEqual(['', 'Csv Nophone', '', '', userId]);

    const other = newUserId();
    const imported = await t.request('POST', '/api/v1/contacts/import', {
      token: admin,
      payload: `phone,name,wa_user_id\n,Csv Renamed,${userId}\n,Csv New,${other}\n,Nobody,\n+16315559876,Csv Phone,${userId}\n+16315559877,Csv Phone Two,${userId}\n`,
      headers: { 'content-type': 'text/csv' },
    });
    // Line 5 gives the id-only contact its phone; line 6 would move it to another phone, which only PATCH may (it knows about blocks).
    expect(imported.body).toEqual({
      created: 1,
      updated: 2,
      refused: [
        { line: 4, error: 'phone and wa_user_id are both empty' },
        { line: 6, error: `wa_user_id ${userId} is the contact with the phone +16315559876` },
      ],
    });
    expect(await contactsMatching('Csv Phone')).toEqual([expect.objectContaining({ phone: '+16315559876', wa_user_id: userId })]);
    expect(await contactsMatching('Csv New')).toEqual([expect.objectContaining({ phone: null, wa_user_id: other })]);
  });
});

import { parsePublicId } from '../src/common/ids';
import { eventually } from './support/channel';
import { createConversation } from './support/factories';
import { customerMessageArrives, customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { nextMillisecond } from './support/clock';

const SECRET = 'merge-test-webhook-secret-5d1e';

let nextPhone = 14155560000 + Math.floor(Math.random() * 9000);
const freshPhone = () => String((nextPhone += 1));

describe('contact merge', () => {
  let t: TestApp;
  let token: string;
  let agent: { id: string; token: string };
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    agent = await t.createUser({ role: 'agent', name: 'Agent Merge' });
    token = agent.token;
    const hook = await t.request('POST', '/api/v1/webhooks', {
      token: await t.adminToken(),
      body: { url: receiver.url('/merged'), events: ['contact.merged'], secret: SECRET },
    });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const merge = (intoId: string, body: unknown) => t.request('POST', `/api/v1/contacts/${intoId}/merge`, { token, body });
  const contactOf = async (phone: string) =>
    (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token })).body.data[0] as {
      id: string;
      [field: string]: unknown;
    };
  const threadOf = async (conversationId: string): Promise<{ id: string; text: string | null; direction: string }[]> =>
    (await t.request('GET', `/api/v1/conversations/${conversationId}/messages?limit=100`, { token })).body.data;
  const writes = async (phone: string, text: string, name = 'Customer') => {
    await nextMillisecond();
    return customerWrites(t, { phone, text, name });
  };

  it("leaves one conversation whose thread holds both customers' messages in order, deletes the other contact, and delivers contact.merged", async () => {
    const [phoneA, phoneB] = [freshPhone(), freshPhone()];
    const a = await writes(phoneA, 'a1 hello from my work phone', 'Maria');
    const b = await writes(phoneB, 'b1 hello from my own phone', 'Maria L');
    await writes(phoneA, 'a2 anyone?');
    await nextMillisecond();
    const reply = await t.request('POST', `/api/v1/conversations/${b.id}/messages`, { token, body: { type: 'text', text: 'r1 hi Maria' } });
    expect(reply.status).toBe(201);
    await writes(phoneB, 'b2 thanks');
    const before = { a: await threadOf(a.id), b: await threadOf(b.id) };
    const into = await contactOf(`+${phoneA}`);
    const from = await contactOf(`+${phoneB}`);

    const answer = await merge(into.id, { from: from.id });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...into, updated_at: expect.any(String) });

    const thread = await threadOf(a.id);
    // Newest first, as the thread always answers: the two customers' messages and the agent's reply interleaved by time.
    expect(thread.map((message) => message.text)).toEqual([
      'b2 thanks',
      'r1 hi Maria',
      'a2 anyone?',
      'b1 hello from my own phone',
      'a1 hello from my work phone',
    ]);
    expect(new Set(thread.map((message) => message.id))).toEqual(new Set([...before.a, ...before.b].map((message) => message.id)));
    expect(thread.every((message) => (message as unknown as { conversation_id: string }).conversation_id === a.id)).toBe(true);
    expect((await t.request('GET', `/api/v1/conversations/${b.id}`, { token })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/contacts/${from.id}`, { token })).status).toBe(404);
    expect((await t.request('POST', `/api/v1/contacts/${from.id}/merge`, { token, body: { from: into.id } })).status).toBe(404);
    const conversations = await t.request('GET', `/api/v1/conversations?q=Maria`, { token });
    expect(conversations.body.data.map((c: { id: string }) => c.id)).toEqual([a.id]);

    const [delivery] = await eventually(async () => {
      expect(receiver.received('/merged')).toHaveLength(1);
      return receiver.received('/merged');
    });
    expect(delivery.json).toMatchObject({ type: 'contact.merged', data: { contact: answer.body, merged_id: from.id } });
  });

  it("combines the fields: this contact's phone, name and e-mail, the other's where it has none, tags and attributes of both", async () => {
    const create = async (body: Record<string, unknown>) => (await t.request('POST', '/api/v1/contacts', { token, body })).body;
    const into = await create({
      phone: `+${freshPhone()}`,
      email: 'keep@example.com',
      tags: ['vip', 'es'],
      attributes: { plan: 'pro', a: 1 },
    });
    const from = await create({
      phone: `+${freshPhone()}`,
      name: 'Filled In',
      email: 'lost@example.com',
      tags: ['es', 'b2b'],
      attributes: { plan: 'basic', b: true },
    });
    const answer = await merge(into.id, { from: from.id });
    expect(answer.body).toEqual({
      ...into,
      name: 'Filled In',
      email: 'keep@example.com',
      tags: ['vip', 'es', 'b2b'],
      attributes: { a: 1, b: true, plan: 'pro' },
      updated_at: expect.any(String),
    });
    expect((await t.request('GET', `/api/v1/contacts/${into.id}`, { token })).body).toEqual(answer.body);
    const events = await t.sql<{ data: unknown }>(`SELECT data FROM events WHERE type = 'contact.merged' AND data->>'merged_id' = $1`, [
      from.id,
    ]);
    expect(events).toEqual([{ data: { contact: answer.body, merged_id: from.id } }]);
  });

  it("gives this contact the other's conversation when only the other has one, its reply window closed until this phone writes", async () => {
    const [phoneA, phoneB] = [freshPhone(), freshPhone()];
    const into = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${phoneA}`, name: 'Ines' } })).body;
    const b = await writes(phoneB, 'only the other wrote');
    const from = await contactOf(`+${phoneB}`);
    expect((await merge(into.id, { from: from.id })).status).toBe(200);
    const conversation = await t.request('GET', `/api/v1/conversations/${b.id}`, { token });
    expect(conversation.body.customer).toEqual({ name: 'Ines', phone: `+${phoneA}`, wa_user_id: null, username: null });
    expect((await threadOf(b.id)).map((message) => message.text)).toEqual(['only the other wrote']);
    const text = await t.request('POST', `/api/v1/conversations/${b.id}/messages`, { token, body: { type: 'text', text: 'Hi' } });
    expect(text.status).toBe(422);
    const template = await t.request('POST', `/api/v1/conversations/${b.id}/messages`, {
      token,
      body: { type: 'template', template: { name: 'hello_world', language: 'en_US' } },
    });
    expect(template.status).toBe(201);
    await writes(phoneA, 'now this phone writes');
    const reply = await t.request('POST', `/api/v1/conversations/${b.id}/messages`, { token, body: { type: 'text', text: 'Hi' } });
    expect(reply.status).toBe(201);
  });

  it('keeps the merged contact opted out of campaigns when the other one was, and in when neither was', async () => {
    const admin = await t.adminToken();
    const x = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const y = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    expect((await t.request('PATCH', `/api/v1/contacts/${y.id}`, { token: admin, body: { opted_out: true } })).body.opted_out).toBe(true);
    const merged = await merge(x.id, { from: y.id });
    expect(merged.status).toBe(200);
    expect(merged.body.opted_out).toBe(true);
    expect((await t.request('GET', `/api/v1/contacts/${x.id}`, { token })).body.opted_out).toBe(true);

    const p = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const q = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    expect((await merge(p.id, { from: q.id })).body.opted_out).toBe(false);
  });

  it("keeps this contact's conversation as it was when the other has none, and merges two contacts without any", async () => {
    const phoneA = freshPhone();
    const a = await writes(phoneA, 'I have one');
    const into = await contactOf(`+${phoneA}`);
    const lonely = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const before = (await t.request('GET', `/api/v1/conversations/${a.id}`, { token })).body;
    expect((await merge(into.id, { from: lonely.id })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/conversations/${a.id}`, { token })).body).toEqual(before);
    expect((await t.request('GET', `/api/v1/contacts/${lonely.id}`, { token })).status).toBe(404);

    const x = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const y = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    expect((await merge(x.id, { from: y.id })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/contacts/${y.id}`, { token })).status).toBe(404);
  });

  it("opens the merged conversation if either was open, takes the other's assignee when it had none, and moves its notifications", async () => {
    const [phoneA, phoneB] = [freshPhone(), freshPhone()];
    const a = await writes(phoneA, 'closed thread');
    const b = await writes(phoneB, 'open and assigned');
    const admin = await t.adminToken();
    expect((await t.request('PATCH', `/api/v1/conversations/${a.id}`, { token: admin, body: { status: 'closed' } })).status).toBe(200);
    expect((await t.request('PATCH', `/api/v1/conversations/${b.id}`, { token: admin, body: { assigned_to: agent.id } })).status).toBe(200);
    const notified = await eventually(async () => {
      const list = await t.request('GET', '/api/v1/notifications', { token });
      const about = list.body.data.filter((n) => n.conversation_id === b.id);
      expect(about).toHaveLength(1);
      return about[0] as { id: string };
    });
    const into = await contactOf(`+${phoneA}`);
    const from = await contactOf(`+${phoneB}`);
    expect((await merge(into.id, { from: from.id })).status).toBe(200);

    const merged = (await t.request('GET', `/api/v1/conversations/${a.id}`, { token })).body;
    expect(merged).toMatchObject({ status: 'open', assigned_to: agent.id });
    const notifications = (await t.request('GET', '/api/v1/notifications', { token })).body.data as {
      id: string;
      conversation_id: string;
    }[];
    expect(notifications.find((n) => n.id === notified.id)?.conversation_id).toBe(a.id);
    const events = await t.sql<{ type: string; data: { conversation: { id: string } } }>(
      `SELECT type, data FROM events WHERE type IN ('conversation.reopened', 'conversation.assigned') AND data->'conversation'->>'id' = $1 ORDER BY created_at, id`,
      [a.id],
    );
    // Recorded in one transaction, often in one millisecond: their ids (UUIDv7) order them only by chance then.
    expect(events.map((event) => event.type).sort()).toEqual(['conversation.assigned', 'conversation.reopened']);
    expect(events.find((event) => event.type === 'conversation.assigned')?.data).toMatchObject({
      assigned_to: agent.id,
      previous_assigned_to: null,
      assigned_by: agent.id,
    });
  });

  it('keeps the labels of both conversations, and a snooze when neither was open (the earlier time)', async () => {
    const [phoneA, phoneB] = [freshPhone(), freshPhone()];
    const a = await writes(phoneA, 'labelled and closed');
    const b = await writes(phoneB, 'labelled and snoozed');
    const admin = await t.adminToken();
    for (const name of [`vip-${phoneA}`, `billing-${phoneB}`])
      expect((await t.request('POST', '/api/v1/labels', { token: admin, body: { name } })).status).toBe(201);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect(
      (await t.request('PATCH', `/api/v1/conversations/${a.id}`, { token, body: { status: 'closed', labels: [`vip-${phoneA}`] } })).status,
    ).toBe(200);
    expect(
      (
        await t.request('PATCH', `/api/v1/conversations/${b.id}`, {
          token,
          body: { status: 'snoozed', snoozed_until: later, labels: [`billing-${phoneB}`] },
        })
      ).status,
    ).toBe(200);
    expect((await merge((await contactOf(`+${phoneA}`)).id, { from: (await contactOf(`+${phoneB}`)).id })).status).toBe(200);
    const merged = (await t.request('GET', `/api/v1/conversations/${a.id}`, { token })).body;
    expect(merged).toMatchObject({ status: 'snoozed', snoozed_until: later, labels: [`billing-${phoneB}`, `vip-${phoneA}`] });
  });

  it('starts a new contact when the merged-away phone writes again', async () => {
    const [phoneA, phoneB] = [freshPhone(), freshPhone()];
    const a = await writes(phoneA, 'first');
    await writes(phoneB, 'second');
    const from = await contactOf(`+${phoneB}`);
    expect((await merge((await contactOf(`+${phoneA}`)).id, { from: from.id })).status).toBe(200);
    const again = await writes(phoneB, 'me again');
    expect(again.id).not.toBe(a.id);
    const fresh = await contactOf(`+${phoneB}`);
    expect(fresh.id).not.toBe(from.id);
  });

  it.each([
    ['no from', {}, 400, /^from is required$/],
    ['from that is not a string', { from: 7 }, 400, /^from must be text$/],
    ['from that is not a contact id', { from: 'conv_0000000000007000800000000000000a' }, 422, /^from does not name a contact$/],
    ['from that names no contact', { from: 'ct_0000000000007000800000000000000a' }, 422, /^from does not name a contact$/],
    ['an unknown field', { from: 'ct_0000000000007000800000000000000a', keep: 'both' }, 400, /^keep is not a known field$/],
  ])('refuses a body with %s', async (_, body, status, message) => {
    const into = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const answer = await merge(into.id, body);
    expect(answer.status).toBe(status);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error).toMatch(message);
  });

  it('refuses to merge a contact into itself (422) or into an unknown contact (404), changing nothing', async () => {
    const contact = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    expect((await merge(contact.id, { from: contact.id })).body).toEqual({ error: 'A contact cannot be merged into itself' });
    const unknown = await merge('ct_0000000000007000800000000000000b', { from: contact.id });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Contact not found' });
    expect((await t.request('GET', `/api/v1/contacts/${contact.id}`, { token })).body).toEqual(contact);
  });

  it('refuses with 422 a merge whose contact would have more than 50 tags, changing nothing', async () => {
    const tags = (prefix: string) => Array.from({ length: 30 }, (_, i) => `${prefix}${i}`);
    const into = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}`, tags: tags('a') } })).body;
    const from = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}`, tags: tags('b') } })).body;
    const answer = await merge(into.id, { from: from.id });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: 'The merged contact would have 60 tags; a contact has at most 50' });
    expect((await t.request('GET', `/api/v1/contacts/${from.id}`, { token })).body).toEqual(from);
    expect((await t.request('GET', `/api/v1/contacts/${into.id}`, { token })).body).toEqual(into);
  });

  it('lets one of two opposite merges run and refuses the other, leaving one contact', async () => {
    const a = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const b = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const answers = await Promise.all([merge(a.id, { from: b.id }), merge(b.id, { from: a.id })]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
    const left = await Promise.all([a, b].map(async (c) => (await t.request('GET', `/api/v1/contacts/${c.id}`, { token })).status));
    expect(left.sort()).toEqual([200, 404]);
  });

  it('loses no message when customers write from both phones while the merge runs', async () => {
    const [phoneA, phoneB] = [freshPhone(), freshPhone()];
    await writes(phoneA, 'before A');
    await writes(phoneB, 'before B');
    const into = await contactOf(`+${phoneA}`);
    const from = await contactOf(`+${phoneB}`);
    const [merged] = await Promise.all([
      merge(into.id, { from: from.id }),
      // Only delivered: a conversation merged away meanwhile is no longer found by its phone.
      ...Array.from({ length: 6 }, (_, i) => customerMessageArrives(t, { phone: i % 2 ? phoneA : phoneB, text: `during ${i}` })),
    ]);
    expect(merged.status).toBe(200);
    const [{ count }] = await t.sql<{ count: number }>(
      `SELECT count(*)::int AS count FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN contacts ct ON ct.id = c.contact_id
        WHERE ct.phone IN ($1, $2)`,
      [`+${phoneA}`, `+${phoneB}`],
    );
    expect(count).toBe(8);
    const mergedThread = await threadOf((await t.request('GET', `/api/v1/conversations?q=${phoneA}`, { token })).body.data[0].id);
    expect(mergedThread.map((message) => message.text)).toEqual(
      expect.arrayContaining(['before A', 'before B', 'during 1', 'during 3', 'during 5']),
    );
  });

  it('answers the conversation created for a factory contact too (merge works with conversations made any way)', async () => {
    const intoContact = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const fromContact = (await t.request('POST', '/api/v1/contacts', { token, body: { phone: `+${freshPhone()}` } })).body;
    const conversation = await createConversation(t, { contact_id: parsePublicId('ct', fromContact.id)! });
    expect((await merge(intoContact.id, { from: fromContact.id })).status).toBe(200);
    const [row] = await t.sql<{ contact_id: string }>('SELECT contact_id FROM conversations WHERE id = $1', [conversation.id]);
    expect(row.contact_id).toBe(parsePublicId('ct', intoContact.id));
  });

  it("counts the other customer's messages after the reader's marker as unread in the merged conversation", async () => {
    const [phoneA, phoneB] = [freshPhone(), freshPhone()];
    const a = await writes(phoneA, 'read before the merge');
    expect((await t.request('POST', `/api/v1/conversations/${a.id}/read`, { token })).body.unread_count).toBe(0);
    await writes(phoneB, 'newer, from the other phone');
    const unreadBefore = (await t.request('GET', '/api/v1/conversations/counts', { token })).body.unread;
    expect((await merge((await contactOf(`+${phoneA}`)).id, { from: (await contactOf(`+${phoneB}`)).id })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/conversations/${a.id}`, { token })).body.unread_count).toBe(1);
    // Two unread conversations became one unread conversation.
    expect((await t.request('GET', '/api/v1/conversations/counts', { token })).body.unread).toBe(unreadBefore);
    expect(
      await t
        .request('GET', '/api/v1/conversations?unread=true&limit=100', { token })
        .then((l) => l.body.data.map((c: { id: string }) => c.id)),
    ).toContain(a.id);
  });
});

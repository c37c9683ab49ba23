import { parsePublicId, toPublicId } from '../src/common/ids';
import { UNREAD_COUNT_LIMIT } from '../src/conversations/conversation.entity';
import { ConversationsService } from '../src/conversations/conversations.service';
import { createConversation } from './support/factories';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

describe('unread state per agent and the counts of the inbox', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  const conversation = async (id: string, token = admin) => (await t.request('GET', `/api/v1/conversations/${id}`, { token })).body;
  const read = (id: string, token = admin) => t.request('POST', `/api/v1/conversations/${id}/read`, { token });
  const counts = async (token = admin) => (await t.request('GET', '/api/v1/conversations/counts', { token })).body;
  const listIds = async (query: string, token = admin): Promise<string[]> => {
    const answer = await t.request('GET', `/api/v1/conversations?limit=100${query}`, { token });
    expect(answer.status).toBe(200);
    return answer.body.data.map((c: { id: string }) => c.id);
  };
  /** Three messages from one customer: their conversation. */
  const threeMessages = async (): Promise<{ id: string; phone: string }> => {
    const customer = await customerWrites(t, { text: 'one' });
    await customerWrites(t, { phone: customer.phone.slice(1), text: 'two' });
    await customerWrites(t, { phone: customer.phone.slice(1), text: 'three' });
    return customer;
  };

  it('shows two agents different unread counts for the same conversation', async () => {
    const agent = await t.createUser();
    const { id, phone } = await threeMessages();
    expect((await conversation(id)).unread_count).toBe(3);
    expect((await conversation(id, agent.token)).unread_count).toBe(3);

    const answer = await read(id);
    expect(answer.status).toBe(200);
    expect(answer.body.unread_count).toBe(0);
    expect((await conversation(id)).unread_count).toBe(0);
    expect((await conversation(id, agent.token)).unread_count).toBe(3);

    await customerWrites(t, { phone: phone.slice(1), text: 'four' });
    expect((await conversation(id)).unread_count).toBe(1);
    expect((await conversation(id, agent.token)).unread_count).toBe(4);
  });

  it('carries each caller’s unread count in the list', async () => {
    const agent = await t.createUser();
    const { id } = await threeMessages();
    await read(id, agent.token);
    const inList = async (token: string) =>
      (await t.request('GET', '/api/v1/conversations?limit=100', { token })).body.data.find((c: { id: string }) => c.id === id);
    expect((await inList(admin))?.unread_count).toBe(3);
    expect((await inList(agent.token))?.unread_count).toBe(0);
  });

  it('does not count the team’s notes as unread', async () => {
    const { id } = await customerWrites(t);
    await read(id);
    const note = await t.request('POST', `/api/v1/conversations/${id}/notes`, { token: admin, body: { text: 'Called her back' } });
    expect(note.status).toBe(201);
    expect((await conversation(id)).unread_count).toBe(0);
    // A customer's message after the note is counted: the marker is not the note's place in the thread.
    const { phone } = (await conversation(id)).customer;
    await customerWrites(t, { phone: phone!.slice(1), text: 'Thanks' });
    expect((await conversation(id)).unread_count).toBe(1);
  });

  it('answers unread_count 0 for a thread with no message yet', async () => {
    const agent = await t.createUser();
    const id = toPublicId('conv', (await createConversation(t)).id);
    expect((await conversation(id)).unread_count).toBe(0);
    expect((await read(id, agent.token)).body.unread_count).toBe(0);
  });

  it('counts up to the limit in a flooded thread', async () => {
    const { id } = await customerWrites(t);
    const uuid = parsePublicId('conv', id)!;
    await t.sql(
      `INSERT INTO messages (id, conversation_id, direction, type, text, content, status, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'inbound', 'text', 'flood ' || i, '{}', 'received', now() + i * interval '1 ms', now() FROM generate_series(1, $2::int) i`,
      [uuid, UNREAD_COUNT_LIMIT + 5],
    );
    await t.sql(
      `UPDATE conversations c SET (last_received_at, last_received_id) = (SELECT m.created_at, m.id FROM messages m WHERE m.conversation_id = c.id ORDER BY m.created_at DESC, m.id DESC LIMIT 1) WHERE c.id = $1`,
      [uuid],
    );
    expect((await conversation(id)).unread_count).toBe(UNREAD_COUNT_LIMIT);
  });

  it('filters unread=true to the conversations with messages the caller has not read', async () => {
    const agent = await t.createUser();
    const readByAdmin = await customerWrites(t);
    const unreadByBoth = await customerWrites(t);
    await read(readByAdmin.id);
    const adminUnread = await listIds('&unread=true');
    expect(adminUnread).toContain(unreadByBoth.id);
    expect(adminUnread).not.toContain(readByAdmin.id);
    const agentUnread = await listIds('&unread=true', agent.token);
    expect(agentUnread).toEqual(expect.arrayContaining([unreadByBoth.id, readByAdmin.id]));
    // unread=false is the whole list.
    expect(await listIds('&unread=false')).toEqual(expect.arrayContaining([unreadByBoth.id, readByAdmin.id]));
  });

  it('refuses an unread filter that is not true or false with 400 naming it', async () => {
    const answer = await t.request('GET', '/api/v1/conversations?unread=yes', { token: admin });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain('unread must be true or false');
  });

  it('moves the counts of the tabs as conversations are written, assigned, read, snoozed and closed', async () => {
    const agent = await t.createUser();
    const before = await counts(agent.token);
    expect(Object.keys(before).sort()).toEqual(['closed', 'mine', 'open', 'snoozed', 'unassigned', 'unread', 'waiting']);
    const { id } = await customerWrites(t);
    const delta = async (expected: Partial<Record<keyof typeof before, number>>) => {
      const now = await counts(agent.token);
      expect(now).toEqual({
        open: before.open + (expected.open ?? 0),
        mine: before.mine + (expected.mine ?? 0),
        unassigned: before.unassigned + (expected.unassigned ?? 0),
        // Waiting for an agent: the unassigned open ones, listed oldest first.
        waiting: before.waiting + (expected.unassigned ?? 0),
        snoozed: before.snoozed + (expected.snoozed ?? 0),
        closed: before.closed + (expected.closed ?? 0),
        unread: before.unread + (expected.unread ?? 0),
      });
    };
    await delta({ open: 1, unassigned: 1, unread: 1 });

    const patch = (body: object) => t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body });
    expect((await patch({ assigned_to: agent.id })).status).toBe(200);
    await delta({ open: 1, mine: 1, unread: 1 });
    // The admin reading it changes nothing for the agent.
    await read(id);
    await delta({ open: 1, mine: 1, unread: 1 });
    await read(id, agent.token);
    await delta({ open: 1, mine: 1 });
    expect((await patch({ status: 'snoozed', snoozed_until: new Date(Date.now() + 3_600_000).toISOString() })).status).toBe(200);
    await delta({ snoozed: 1 });
    expect((await patch({ status: 'closed' })).status).toBe(200);
    await delta({ closed: 1 });
  });

  it('counts for each caller: mine and unread are their own', async () => {
    const agent = await t.createUser();
    const { id } = await customerWrites(t);
    await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { assigned_to: agent.id } });
    const agentsBefore = await counts(agent.token);
    const adminsBefore = await counts();
    await read(id, agent.token);
    expect((await counts(agent.token)).unread).toBe(agentsBefore.unread - 1);
    expect((await counts()).unread).toBe(adminsBefore.unread);
    expect(agentsBefore.mine).toBe(1);
    expect(adminsBefore.mine).toBe((await counts()).mine);
  });

  /** The counts as a pass over every conversation and the user's markers finds them: what the ledger must always equal. */
  const recount = async (userPublicId: string) => {
    const [row] = await t.sql<Record<string, number>>(
      `SELECT count(*) FILTER (WHERE c.status = 'open')::int AS open,
              count(*) FILTER (WHERE c.status = 'open' AND c.assigned_to = $1)::int AS mine,
              count(*) FILTER (WHERE c.status = 'open' AND c.assigned_to IS NULL)::int AS unassigned,
              count(*) FILTER (WHERE c.waiting_since IS NOT NULL)::int AS waiting,
              count(*) FILTER (WHERE c.status = 'snoozed')::int AS snoozed,
              count(*) FILTER (WHERE c.status = 'closed')::int AS closed,
              count(*) FILTER (WHERE c.status = 'open' AND c.last_received_id IS NOT NULL
                                 AND (r.last_read_at IS NULL OR (r.last_read_at, r.last_read_message_id) < (c.last_received_at, c.last_received_id)))::int AS unread
         FROM conversations c LEFT JOIN conversation_reads r ON r.conversation_id = c.id AND r.user_id = $1`,
      [parsePublicId('user', userPublicId)!],
    );
    return row;
  };

  it('keeps the counts equal to a recount after every kind of change, before and after folding', async () => {
    const [agent, leaving] = [await t.createUser(), await t.createUser()];
    const a = await threeMessages();
    const b = await customerWrites(t);
    const c = await customerWrites(t);
    await read(a.id, agent.token);
    await read(b.id, leaving.token);
    const patch = (id: string, body: object) => t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body });
    await patch(a.id, { assigned_to: agent.id });
    await patch(b.id, { assigned_to: leaving.id });
    await patch(c.id, { status: 'snoozed', snoozed_until: new Date(Date.now() + 3_600_000).toISOString() });
    await customerWrites(t, { phone: a.phone.slice(1), text: 'after the read' });
    await customerWrites(t, { phone: c.phone.slice(1), text: 'wakes the snooze' });
    await patch(b.id, { status: 'closed' });
    // A merge deletes one conversation, its markers with it.
    const contactOf = async (phone: string) =>
      (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token: admin })).body.data[0].id;
    expect(
      (
        await t.request('POST', `/api/v1/contacts/${await contactOf(a.phone)}/merge`, {
          token: admin,
          body: { from: await contactOf(c.phone) },
        })
      ).status,
    ).toBe(200);
    // A user deleted takes their markers and assignments with them.
    expect((await t.request('DELETE', `/api/v1/users/${leaving.id}`, { token: admin })).status).toBe(204);
    for (const user of [agent.id, (await t.request('GET', '/api/v1/me', { token: admin })).body.id]) {
      const token = user === agent.id ? agent.token : admin;
      expect(await counts(token)).toEqual(await recount(user));
    }
    await t.app.get(ConversationsService).foldCounters();
    expect(await counts(agent.token)).toEqual(await recount(agent.id));
    expect((await t.sql<{ rows: number }>('SELECT count(*)::int AS rows FROM conversation_counters'))[0].rows).toBeLessThan(20);
  });

  it('keeps the counts equal to a recount when agents read while customers write', async () => {
    const agents = [await t.createUser(), await t.createUser(), await t.createUser()];
    const customers = await Promise.all([1, 2, 3, 4].map(() => customerWrites(t)));
    await Promise.all(
      Array.from({ length: 6 }, async (_, round) => {
        for (const [i, customer] of customers.entries()) {
          await Promise.all([
            customerWrites(t, { phone: customer.phone.slice(1), text: `round ${round}` }),
            read(customer.id, agents[(i + round) % agents.length].token),
          ]);
        }
      }),
    );
    for (const agent of agents) expect(await counts(agent.token)).toEqual(await recount(agent.id));
  });

  it('leaves the caller’s unread_count out of events, which many read', async () => {
    const { id } = await customerWrites(t);
    const events = (await t.events('message.received')).filter((e) => (e.data as { conversation: { id: string } }).conversation.id === id);
    expect(events).toHaveLength(1);
    expect(events[0].data).toHaveProperty('conversation.last_message');
    expect(events[0].data).not.toHaveProperty('conversation.unread_count');
  });
});

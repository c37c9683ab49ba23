import { AssignmentRepository } from '../src/assignment/assignment.repository';
import { AssignmentService } from '../src/assignment/assignment.service';
import { parsePublicId } from '../src/common/ids';
import { Database } from '../src/database/database';
import { messagesWebhook } from '../scripts/lib/channel-webhook';
import { channelMessage, eventually } from './support/channel';
import { SseClient } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

/** Short, so an agent whose console closed goes offline within the test. */
const TIMEOUT_SECONDS = 2;

interface Agent {
  id: string;
  name: string;
  token: string;
  stream: SseClient | null;
}

describe('assignment: teams, availability and the router', () => {
  let t: TestApp;
  let admin: string;
  let streamUrl: string;
  let numbers = 710_000_000_000_000;
  let phones = 3_100_000_000;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { AVAILABILITY_TIMEOUT: `${TIMEOUT_SECONDS}s` } });
    admin = await t.adminToken();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    streamUrl = `${(await t.app.getUrl()).replace('[::1]', '127.0.0.1')}/api/v1/events/stream`;
  });
  afterAll(async () => {
    for (const stream of streams) await stream.close();
    await t.close();
  });

  /** A new inbox (its own number) assigning as `assignment` says. */
  async function inbox(assignment: { mode: string; capacity?: number | null; team_id?: string | null }) {
    numbers += 1;
    const created = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: `Inbox ${numbers}`, phone_number_id: String(numbers), access_token: 'token' },
    });
    expect(created.status).toBe(201);
    const set = await t.request('PATCH', `/api/v1/inboxes/${created.body.id}`, { token: admin, body: { assignment } });
    expect(set.status).toBe(200);
    return { id: created.body.id as string, number: String(numbers) };
  }

  /** An agent of `inboxId`, at the console (an event stream open) and online unless told otherwise. */
  async function agent(inboxId: string, name: string, availability: 'online' | 'busy' | 'offline' | null = 'online'): Promise<Agent> {
    const user = await t.createUser({ name, inbox_ids: [inboxId] });
    const stream = await SseClient.connect(streamUrl, { authorization: `Bearer ${user.token}` });
    streams.push(stream);
    await stream.until((client) => client.positions.length > 0 || client.frames('counts').length > 0);
    if (availability) await setAvailability(user.token, availability);
    return { id: user.id, name, token: user.token, stream };
  }

  async function setAvailability(token: string, availability: string) {
    const answer = await t.request('PATCH', '/api/v1/me', { token, body: { availability } });
    expect(answer.status).toBe(200);
    expect(answer.body.availability).toBe(availability);
  }

  /** A customer writes to the inbox's number; answers their conversation's id. */
  async function customerWrites(number: string): Promise<string> {
    phones += 1;
    const from = String(phones);
    const answer = await t.request('POST', '/api/webhooks/messaging', {
      body: messagesWebhook(
        {
          contacts: [{ wa_id: from, profile: { name: `Customer ${from}` } }],
          messages: [channelMessage({ from, payload: { body: 'Hello' } })],
        },
        { phoneNumberId: number },
      ),
    });
    expect(answer.status).toBe(200);
    const found = await t.request('GET', `/api/v1/conversations?q=${from}`, { token: admin });
    return found.body.data[0].id as string;
  }

  const conversation = async (id: string) => (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body;
  const assigneeOf = async (id: string) => (await conversation(id)).assigned_to as string | null;
  const assignedTo = (id: string, agentId: string | null) =>
    eventually(async () => {
      expect(await assigneeOf(id)).toBe(agentId);
    });
  const close = (id: string, token = admin) => t.request('PATCH', `/api/v1/conversations/${id}`, { token, body: { status: 'closed' } });
  const load = async (userId: string) =>
    (await t.request('GET', '/api/v1/assignment/agents', { token: admin })).body.data.find((row) => row.user_id === userId);

  describe('availability', () => {
    it('is set by the user through PATCH /api/v1/me and shown in /me, the users list and the agents’ loads', async () => {
      const user = await t.createUser({ name: 'Ava Available' });
      expect((await t.request('GET', '/api/v1/me', { token: user.token })).body.availability).toBe('offline');
      await setAvailability(user.token, 'busy');
      expect((await t.request('GET', '/api/v1/me', { token: user.token })).body.availability).toBe('busy');
      const users = await t.request('GET', '/api/v1/users?limit=100', { token: user.token });
      expect(users.body.data.find((row) => row.id === user.id)?.availability).toBe('busy');
      expect(await load(user.id))?.toEqual({
        user_id: user.id,
        name: 'Ava Available',
        role: 'agent',
        availability: 'busy',
        open_conversations: 0,
        capacity: null,
        team_ids: [],
      });
    });

    it('refuses an availability that is none of online, busy, offline with 400 naming it', async () => {
      const user = await t.createUser();
      const answer = await t.request('PATCH', '/api/v1/me', { token: user.token, body: { availability: 'away' } });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain('availability must be one of online, busy, offline');
    });

    it('turns offline an online agent whose last event stream ended AVAILABILITY_TIMEOUT ago, and keeps one whose stream is open', async () => {
      const { id: inboxId } = await inbox({ mode: 'manual' });
      const leaving = await agent(inboxId, 'Lea Leaving');
      const staying = await agent(inboxId, 'Sam Staying');
      await leaving.stream!.close();
      await eventually(async () => expect((await load(leaving.id))?.availability).toBe('offline'), 10_000);
      expect((await load(staying.id))?.availability).toBe('online');
    });
  });

  describe('policies', () => {
    it('manual: a new conversation waits, assigned to nobody, however many agents are online', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'manual' });
      await agent(inboxId, 'Manny Manual');
      const waiting = await customerWrites(number);
      // The router has turned since (its turn follows every recorded event): still nobody.
      await t.app.get(AssignmentService).turn();
      expect(await assigneeOf(waiting)).toBeNull();
      expect((await conversation(waiting)).waiting_since).not.toBeNull();
    });

    it('round_robin: gives each new conversation to the online member assigned least recently, in turn', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'round_robin' });
      const agents = [await agent(inboxId, 'Rob One'), await agent(inboxId, 'Rob Two'), await agent(inboxId, 'Rob Three')];
      const given: string[] = [];
      for (let i = 0; i < 6; i += 1) {
        const id = await customerWrites(number);
        given.push(await eventually(async () => (await assigneeOf(id)) ?? Promise.reject(new Error('not assigned yet'))));
      }
      // Each agent once per round, the same order in the second round as in the first.
      expect(new Set(given.slice(0, 3))).toEqual(new Set(agents.map((a) => a.id)));
      expect(given.slice(3)).toEqual(given.slice(0, 3));
    });

    it('balanced: gives a new conversation to the online member with the fewest open ones', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'balanced' });
      const [busiest, idle, middle] = [
        await agent(inboxId, 'Bea Busiest'),
        await agent(inboxId, 'Ian Idle'),
        await agent(inboxId, 'Mia Middle'),
      ];
      // Loads 2, 0, 1, given by hand while the inbox assigned by hand.
      await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { assignment: { mode: 'manual' } } });
      for (const [owner, count] of [
        [busiest, 2],
        [middle, 1],
      ] as const)
        for (let i = 0; i < count; i += 1) {
          const id = await customerWrites(number);
          await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { assigned_to: owner.id } });
        }
      await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { assignment: { mode: 'balanced' } } });

      const first = await customerWrites(number);
      await assignedTo(first, idle.id);
      // Now idle and middle have 1 each; the tie goes to the one given a conversation least recently (middle, never by the router).
      const second = await customerWrites(number);
      await assignedTo(second, middle.id);
      const third = await customerWrites(number);
      await assignedTo(third, idle.id);
      expect((await load(busiest.id))?.open_conversations).toBe(2);
    });

    it('gives nothing to a busy or offline member, and the assignment is an ordinary conversation.assigned by nobody, with a notification', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'round_robin' });
      await agent(inboxId, 'Bo Busy', 'busy');
      await agent(inboxId, 'Otto Offline', 'offline');
      const online = await agent(inboxId, 'Olga Online');
      for (let i = 0; i < 3; i += 1) await assignedTo(await customerWrites(number), online.id);

      const id = await customerWrites(number);
      await assignedTo(id, online.id);
      const assigned = (await t.events('conversation.assigned')).filter((event) => event.data.conversation.id === id);
      expect(assigned).toHaveLength(1);
      expect(assigned[0].data).toMatchObject({ assigned_to: online.id, previous_assigned_to: null, assigned_by: null });
      await online.stream!.until((client) =>
        client.events.some((event) => event.event === 'conversation.assigned' && JSON.parse(event.data).data.conversation.id === id),
      );
      const notifications = await t.request('GET', '/api/v1/notifications', { token: online.token });
      expect(notifications.body.data.filter((n) => n.conversation_id === id)).toEqual([
        expect.objectContaining({
          type: 'conversation.assigned',
          text: expect.stringContaining('You were given the conversation with Customer'),
        }),
      ]);
    });
  });

  describe('capacity and the queue', () => {
    it('stops at capacity, keeps the rest waiting oldest first, and hands the oldest out when an agent closes one', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'round_robin', capacity: 1 });
      const solo = await agent(inboxId, 'Solo Capacity');
      const first = await customerWrites(number);
      const second = await customerWrites(number);
      const third = await customerWrites(number);
      await assignedTo(first, solo.id);
      await t.app.get(AssignmentService).turn();
      expect(await assigneeOf(second)).toBeNull();
      expect(await assigneeOf(third)).toBeNull();

      const counts = await t.request('GET', `/api/v1/conversations/counts?inbox_id=${inboxId}`, { token: solo.token });
      expect(counts.body).toMatchObject({ waiting: 2, unassigned: 2, mine: 1 });
      const queue = await t.request('GET', `/api/v1/conversations?waiting=true&inbox_id=${inboxId}`, { token: solo.token });
      expect(queue.body.data.map((c) => c.id)).toEqual([second, third]);
      const [since, laterSince] = queue.body.data.map((c) => Date.parse(c.waiting_since ?? ''));
      expect(since).toBeLessThanOrEqual(laterSince);
      expect((await load(solo.id))?.capacity).toBe(1);

      expect((await close(first, solo.token)).status).toBe(200);
      await assignedTo(second, solo.id);
      expect(await assigneeOf(third)).toBeNull();
      expect((await conversation(second)).waiting_since).toBeNull();
      await close(second, solo.token);
      await assignedTo(third, solo.id);
    });

    it('hands a waiting conversation out the moment a member comes online, and when capacity is raised', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'balanced', capacity: 1 });
      const late = await agent(inboxId, 'Lou Late', 'offline');
      const first = await customerWrites(number);
      const second = await customerWrites(number);
      await t.app.get(AssignmentService).turn();
      expect(await assigneeOf(first)).toBeNull();

      await setAvailability(late.token, 'online');
      await assignedTo(first, late.id);
      expect(await assigneeOf(second)).toBeNull();

      await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { assignment: { mode: 'balanced', capacity: 2 } } });
      await assignedTo(second, late.id);
    });

    it('counts capacity over every inbox of the agent', async () => {
      const sales = await inbox({ mode: 'manual' });
      const support = await inbox({ mode: 'round_robin', capacity: 2 });
      const user = await t.createUser({ name: 'Two Inboxes', inbox_ids: [sales.id, support.id] });
      streams.push(await SseClient.connect(streamUrl, { authorization: `Bearer ${user.token}` }));
      await setAvailability(user.token, 'online');
      const elsewhere = await customerWrites(sales.number);
      await t.request('PATCH', `/api/v1/conversations/${elsewhere}`, { token: admin, body: { assigned_to: user.id } });
      const first = await customerWrites(support.number);
      const second = await customerWrites(support.number);
      await assignedTo(first, user.id);
      await t.app.get(AssignmentService).turn();
      expect(await assigneeOf(second)).toBeNull();
    });
  });

  describe('switching and opening', () => {
    it('takes nobody’s conversations when an inbox becomes automatic, however long its agents have been offline', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'manual' });
      const keeper = await t.createUser({ name: 'Kim Keeper', inbox_ids: [inboxId] });
      const id = await customerWrites(number);
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { assigned_to: keeper.id } });
      await t.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { assignment: { mode: 'round_robin' } } });
      // Offline from the start: never went anywhere, so nothing is given back, however many turns pass.
      await t.app.get(AssignmentService).turn();
      expect(await assigneeOf(id)).toBe(keeper.id);
      // Going offline is leaving: after the timeout it goes back to the queue.
      await setAvailability(keeper.token, 'online');
      await setAvailability(keeper.token, 'offline');
      await assignedTo(id, null);
    });

    it('gives a conversation an agent opens in an automatic inbox to that agent', async () => {
      const { id: inboxId } = await inbox({ mode: 'balanced' });
      const opener = await agent(inboxId, 'Opal Opener', 'busy');
      await agent(inboxId, 'Other Online');
      const contact = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: `+1${(phones += 1)}`, name: 'Opened' } });
      const opened = await t.request('POST', '/api/v1/conversations', {
        token: opener.token,
        body: { contact_id: contact.body.id, inbox_id: inboxId },
      });
      expect(opened.status).toBe(201);
      expect(opened.body.assigned_to).toBe(opener.id);
      await t.app.get(AssignmentService).turn();
      expect(await assigneeOf(opened.body.id)).toBe(opener.id);
    });

    it('passes over a team that no longer works the inbox: the conversation goes to any member', async () => {
      const target = await inbox({ mode: 'manual' });
      const member = await agent(target.id, 'Former Team');
      const team = await t.request('POST', '/api/v1/teams', { token: admin, body: { name: 'Left the inbox', inbox_ids: [target.id] } });
      const id = await customerWrites(target.number);
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { team_id: team.body.id } });
      await t.request('PATCH', `/api/v1/inboxes/${target.id}`, { token: admin, body: { assignment: { mode: 'round_robin' } } });
      await t.app.get(AssignmentService).turn();
      // The team has no member: nobody takes it while it works the inbox.
      expect(await assigneeOf(id)).toBeNull();
      await t.request('PATCH', `/api/v1/teams/${team.body.id}`, { token: admin, body: { inbox_ids: [] } });
      await assignedTo(id, member.id);
    });

    it('looks for waiting conversations inbox by inbox on their index, never through the queue of the inboxes assigned by hand', async () => {
      // A long queue in an inbox assigned by hand, which the router never reads.
      await t.sql(`INSERT INTO contacts (id, phone, name, tags, created_at, updated_at)
        SELECT gen_random_uuid(), '+1777' || lpad(i::text, 7, '0'), 'Queued ' || i, '{}', now(), now() FROM generate_series(1, 3000) i`);
      await t.sql(`INSERT INTO conversations (id, contact_id, inbox_id, status, last_message_at, waiting_since, created_at, updated_at)
        SELECT gen_random_uuid(), id, (SELECT id FROM inboxes WHERE is_default), 'open', now(), now(), now(), now()
          FROM contacts WHERE name LIKE 'Queued %'`);
      await t.sql('ANALYZE conversations');
      const { text, values } = t.app.get(AssignmentRepository).anyWaitingStatement().compile();
      const plan = (await t.sql<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).not.toMatch(/Seq Scan on conversations|Hash/);
      expect(plan).toContain('conversations_inbox_waiting_idx');
      // And it answers: nothing waits in an automatic inbox here until a customer writes in one.
      const repository = t.app.get(AssignmentRepository);
      const database = t.app.get(Database);
      const { number } = await inbox({ mode: 'round_robin' });
      await t.sql('UPDATE conversations SET waiting_since = NULL WHERE inbox_id <> (SELECT id FROM inboxes WHERE is_default)');
      expect(await repository.anyWaiting(database.db)).toBe(false);
      await customerWrites(number);
      expect(await repository.anyWaiting(database.db)).toBe(true);
      await t.sql("DELETE FROM conversations WHERE contact_id IN (SELECT id FROM contacts WHERE name LIKE 'Queued %')");
      await t.sql("DELETE FROM contacts WHERE name LIKE 'Queued %'");
    });

    it('pages the queue without repeating or skipping conversations that began waiting in the same statement', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'manual' });
      const owner = await t.createUser({ inbox_ids: [inboxId] });
      const ids: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        ids.push(await customerWrites(number));
        await t.request('PATCH', `/api/v1/conversations/${ids[i]}`, { token: admin, body: { assigned_to: owner.id } });
      }
      await t.sql('UPDATE conversations SET assigned_to = NULL WHERE assigned_to = $1', [parsePublicId('user', owner.id)]);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const after: string = cursor ? `&cursor=${cursor}` : '';
        const page = await t.request('GET', `/api/v1/conversations?waiting=true&inbox_id=${inboxId}&limit=1${after}`, { token: admin });
        seen.push(...page.body.data.map((c) => c.id));
        cursor = page.body.next_cursor;
      } while (cursor && seen.length < 10);
      expect(seen.sort()).toEqual([...ids].sort());
    });
  });

  describe('reassignment', () => {
    it('gives an offline agent’s open conversations back to the queue after the timeout, not their snoozed ones', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'round_robin' });
      const leaving = await agent(inboxId, 'Leo Leaving');
      const open = await customerWrites(number);
      const snoozed = await customerWrites(number);
      await assignedTo(open, leaving.id);
      await assignedTo(snoozed, leaving.id);
      const later = new Date(Date.now() + 3_600_000).toISOString();
      await t.request('PATCH', `/api/v1/conversations/${snoozed}`, { token: admin, body: { status: 'snoozed', snoozed_until: later } });

      const other = await agent(inboxId, 'Ona Other');
      await leaving.stream!.close();
      await assignedTo(open, other.id);
      expect(await assigneeOf(snoozed)).toBe(leaving.id);
      const events = (await t.events('conversation.assigned')).filter((event) => event.data.conversation.id === open);
      expect(events.map((event) => [event.data.assigned_to, event.data.assigned_by])).toEqual([
        [leaving.id, null],
        [null, null],
        [other.id, null],
      ]);
    });

    it('keeps a busy agent’s conversations, and gives them none', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'round_robin' });
      const busy = await agent(inboxId, 'Bill Busy');
      const kept = await customerWrites(number);
      await assignedTo(kept, busy.id);
      await setAvailability(busy.token, 'busy');
      const fresh = await customerWrites(number);
      await t.app.get(AssignmentService).turn();
      expect(await assigneeOf(fresh)).toBeNull();
      expect(await assigneeOf(kept)).toBe(busy.id);
    });

    it('gives the open conversations of an agent removed from the inbox, or deleted, to another member', async () => {
      const { id: inboxId, number } = await inbox({ mode: 'balanced' });
      const removed = await agent(inboxId, 'Rem Removed');
      const deleted = await agent(inboxId, 'Del Deleted');
      const first = await customerWrites(number);
      const second = await customerWrites(number);
      await eventually(async () =>
        expect(new Set([await assigneeOf(first), await assigneeOf(second)])).toEqual(new Set([removed.id, deleted.id])),
      );
      const ofRemoved = (await assigneeOf(first)) === removed.id ? first : second;
      const ofDeleted = ofRemoved === first ? second : first;
      await setAvailability(removed.token, 'busy');
      await setAvailability(deleted.token, 'busy');
      const stays = await agent(inboxId, 'Stu Stays');

      expect((await t.request('PATCH', `/api/v1/users/${removed.id}`, { token: admin, body: { inbox_ids: [] } })).status).toBe(200);
      await assignedTo(ofRemoved, stays.id);
      expect((await t.request('DELETE', `/api/v1/users/${deleted.id}`, { token: admin })).status).toBe(204);
      await assignedTo(ofDeleted, stays.id);
    });
  });

  describe('teams', () => {
    it('gives an inbox’s conversations to its assignment team’s members only', async () => {
      const target = await inbox({ mode: 'manual' });
      const member = await agent(target.id, 'Tina Team');
      await agent(target.id, 'Noah Notinteam');
      const team = await t.request('POST', '/api/v1/teams', {
        token: admin,
        body: { name: 'Assigning team', member_ids: [member.id], inbox_ids: [target.id] },
      });
      expect(team.status).toBe(201);
      const set = await t.request('PATCH', `/api/v1/inboxes/${target.id}`, {
        token: admin,
        body: { assignment: { mode: 'round_robin', team_id: team.body.id } },
      });
      expect(set.body.assignment).toEqual({ mode: 'round_robin', capacity: null, team_id: team.body.id });
      for (let i = 0; i < 3; i += 1) await assignedTo(await customerWrites(target.number), member.id);
    });

    it('gives a conversation handed to a team to that team’s members, whatever the inbox’s team', async () => {
      const target = await inbox({ mode: 'manual' });
      const billing = await agent(target.id, 'Bella Billing');
      await agent(target.id, 'Gus General');
      const team = await t.request('POST', '/api/v1/teams', {
        token: admin,
        body: { name: 'Billing desk', member_ids: [billing.id], inbox_ids: [target.id] },
      });
      const id = await customerWrites(target.number);
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { team_id: team.body.id } });
      await t.request('PATCH', `/api/v1/inboxes/${target.id}`, { token: admin, body: { assignment: { mode: 'balanced' } } });
      await assignedTo(id, billing.id);
    });

    it('refuses an assignment team that does not work the inbox with 422', async () => {
      const target = await inbox({ mode: 'manual' });
      const team = await t.request('POST', '/api/v1/teams', { token: admin, body: { name: 'Elsewhere team' } });
      const answer = await t.request('PATCH', `/api/v1/inboxes/${target.id}`, {
        token: admin,
        body: { assignment: { mode: 'round_robin', team_id: team.body.id } },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.error).toBe('assignment.team_id does not name a team that works this inbox');
    });
  });

  it('refuses a policy with an unknown mode or a capacity below 1 with 400 naming the field', async () => {
    const target = await inbox({ mode: 'manual' });
    for (const [assignment, message] of [
      [{ mode: 'random' }, 'assignment.mode must be one of manual, round_robin, balanced'],
      [{ mode: 'balanced', capacity: 0 }, 'assignment.capacity must be at least 1'],
      [{ mode: 'balanced', capacity: 1.5 }, 'assignment.capacity must be a whole number'],
      ['balanced', 'assignment must be an object'],
    ] as const) {
      const answer = await t.request('PATCH', `/api/v1/inboxes/${target.id}`, { token: admin, body: { assignment } });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
    }
  });
});

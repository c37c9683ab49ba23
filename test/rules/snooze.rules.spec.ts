import { randomInt } from 'node:crypto';
import { parsePublicId, toPublicId } from '../../src/common/ids';
import { ConversationsService } from '../../src/conversations/conversations.service';
import { ConversationResponse, ListConversationsQuery, UpdateConversationDto } from '../../src/conversations/conversation.dto';
import { Database } from '../../src/database/database';
import { execute, query, sql } from '../../src/database/sql';
import { InboundService } from '../../src/inbound/inbound.service';
import { UserRepository } from '../../src/users/user.repository';
import { UserRow } from '../../src/users/user.entity';
import { channelMessage, channelWebhook } from '../support/channel';
import { asInEvents } from '../support/inbox';
import { startServiceTier, ServiceTier } from '../support/service-tier';

/**
 * The rules of a snooze, through the services: what ends it (its time, the customer, an agent), what
 * it leaves alone, and the one event each change records. The API's answers and refusals of a snooze
 * are the contract, in test/snooze.e2e.spec.ts.
 */
describe('the rules of a snooze', () => {
  let tier: ServiceTier;
  let database: Database;
  let conversations: ConversationsService;
  let inbound: InboundService;
  let admin: UserRow;

  beforeAll(async () => {
    tier = await startServiceTier();
    database = tier.get(Database);
    conversations = tier.get(ConversationsService);
    inbound = tier.get(InboundService);
    const users = tier.get(UserRepository);
    const [adminId] = await database.transaction((db) => users.lockAdmins(db));
    admin = (await users.find(database.db, adminId))!;
  });
  afterAll(() => tier.close());

  const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

  /** A customer of a number no other test uses writes; answers their conversation's id (internal) and number. */
  async function customerWrites(phone = `1415${randomInt(2_000_000, 10_000_000)}`, text = 'Hello'): Promise<{ id: string; phone: string }> {
    const body = channelWebhook({
      contacts: [{ wa_id: phone, name: 'Customer' }],
      messages: [channelMessage({ from: phone, payload: { body: text } })],
    });
    expect(await inbound.ingest(Buffer.from(JSON.stringify(body)), undefined, body)).toEqual({ messages: 1, statuses: 0 });
    const page = await conversations.list(Object.assign(new ListConversationsQuery(), { q: `+${phone}` }), admin);
    return { id: parsePublicId('conv', page.data[0].id)!, phone };
  }
  const update = (id: string, fields: Partial<UpdateConversationDto>) =>
    conversations.update(id, Object.assign(new UpdateConversationDto(), fields), admin);
  const snooze = (id: string, until: string) => update(id, { status: 'snoozed', snoozed_until: until });
  const eventsOf = async (type: string, id: string) =>
    (
      await query<{ data: { conversation: ConversationResponse; changes?: unknown } }>(
        database.db,
        sql`SELECT data FROM events WHERE type = ${type} AND data->'conversation'->>'id' = ${toPublicId('conv', id)} ORDER BY created_at, id`,
      )
    ).map((row) => row.data);

  it('records conversation.updated with the status and snoozed_until changes, then only the time when the snooze moves, and nothing when it stays', async () => {
    const { id } = await customerWrites();
    const [first, second] = [fromNow(3600_000), fromNow(7200_000)];
    const snoozed = await snooze(id, first);
    const moved = await snooze(id, second);
    expect(moved.snoozed_until).toBe(second);
    await snooze(id, second);
    expect(await eventsOf('conversation.updated', id)).toEqual([
      { conversation: asInEvents(snoozed), changes: { status: { from: 'open', to: 'snoozed' }, snoozed_until: { from: null, to: first } } },
      { conversation: asInEvents(moved), changes: { snoozed_until: { from: first, to: second } } },
    ]);
  });

  it('opens a conversation whose time has come, once, with one conversation.reopened, and leaves one still due later', async () => {
    const due = await customerWrites();
    const later = await customerWrites();
    await snooze(due.id, fromNow(3600_000));
    await snooze(later.id, fromNow(3600_000));
    // Its time comes: the wake-up that runs every second would find it; here it is called at once.
    await execute(database.db, sql`UPDATE conversations SET snoozed_until = now() - interval '1 second' WHERE id = ${due.id}`);
    await conversations.wakeDueSnoozes();
    await conversations.wakeDueSnoozes();
    expect(await conversations.get(due.id, admin)).toMatchObject({ status: 'open', snoozed_until: null });
    expect((await eventsOf('conversation.reopened', due.id)).map((data) => data.conversation)).toEqual([
      expect.objectContaining({ status: 'open', snoozed_until: null }),
    ]);
    expect(await conversations.get(later.id, admin)).toMatchObject({ status: 'snoozed' });
    expect(await eventsOf('conversation.reopened', later.id)).toEqual([]);
  });

  it('opens it when the customer writes before its time, with one conversation.reopened, and never again at that time', async () => {
    const { id, phone } = await customerWrites();
    await snooze(id, fromNow(3600_000));
    await customerWrites(phone, 'Any news?');
    expect(await conversations.get(id, admin)).toMatchObject({ status: 'open', snoozed_until: null });
    const [row] = await query<{ status: string; snoozed_until: Date | null }>(
      database.db,
      sql`SELECT status, snoozed_until FROM conversations WHERE id = ${id}`,
    );
    expect(row).toEqual({ status: 'open', snoozed_until: null });
    await conversations.wakeDueSnoozes();
    expect(await eventsOf('conversation.reopened', id)).toHaveLength(1);
  });

  it('clears snoozed_until when a snoozed conversation is closed, recording conversation.closed', async () => {
    const { id } = await customerWrites();
    await snooze(id, fromNow(3600_000));
    const closed = await update(id, { status: 'closed' });
    expect(closed).toMatchObject({ status: 'closed', snoozed_until: null });
    expect(await eventsOf('conversation.closed', id)).toEqual([{ conversation: asInEvents(closed) }]);
  });

  it('clears snoozed_until when a snoozed conversation is reopened by hand, recording conversation.reopened', async () => {
    const { id } = await customerWrites();
    await snooze(id, fromNow(3600_000));
    const opened = await update(id, { status: 'open' });
    expect(opened).toMatchObject({ status: 'open', snoozed_until: null });
    expect(await eventsOf('conversation.reopened', id)).toEqual([{ conversation: asInEvents(opened) }]);
  });

  it('keeps the snooze when only the assignee changes', async () => {
    const { id } = await customerWrites();
    const until = fromNow(3600_000);
    await snooze(id, until);
    const assigned = await update(id, { assigned_to: toPublicId('user', admin.id) });
    expect(assigned).toMatchObject({ status: 'snoozed', snoozed_until: until, assigned_to: toPublicId('user', admin.id) });
  });
});

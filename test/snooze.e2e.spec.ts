import { eventually } from './support/channel';
import { describeWithPostgresAndRedis } from './support/environment';
import { customerWrites } from './support/inbox';
import { startTestApp, startTwoInstances, TestApp } from './support/test-app';

/** A time `ms` from now, as the API takes it. */
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

const snooze = async (t: TestApp, id: string, until: string) =>
  t.request('PATCH', `/api/v1/conversations/${id}`, { token: await t.adminToken(), body: { status: 'snoozed', snoozed_until: until } });

const listed = async (t: TestApp, query: string) =>
  ((await t.request('GET', `/api/v1/conversations?limit=100&${query}`, { token: await t.adminToken() })).body.data as { id: string }[]).map(
    (c) => c.id,
  );

const eventsOf = async (t: TestApp, type: string, conversationId: string) =>
  (await t.events(type)).filter((event) => event.data.conversation.id === conversationId);

/** Waits until the conversation is open again (the wake-up runs every second). */
const becomesOpen = (t: TestApp, id: string) =>
  eventually(async () => {
    const conversation = await t.request('GET', `/api/v1/conversations/${id}`, { token: await t.adminToken() });
    expect(conversation.body).toMatchObject({ status: 'open', snoozed_until: null });
    return conversation.body as { updated_at: string };
  });

describe('snoozing a conversation', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  it('answers the conversation snoozed with its snoozed_until, hidden from status=open and listed under status=snoozed', async () => {
    const { id } = await customerWrites(t);
    const until = fromNow(3600_000);
    const answer = await snooze(t, id, until);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id, status: 'snoozed', snoozed_until: until });
    expect(await listed(t, 'status=open')).not.toContain(id);
    expect(await listed(t, 'status=snoozed')).toContain(id);
    expect((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body).toEqual(answer.body);
  });

  it('opens it again by itself when its time comes, with one conversation.reopened', async () => {
    const { id } = await customerWrites(t);
    const snoozed = await snooze(t, id, fromNow(1500));
    expect(snoozed.body.status).toBe('snoozed');
    await becomesOpen(t, id);
    expect(await listed(t, 'status=open')).toContain(id);
    expect(await listed(t, 'status=snoozed')).not.toContain(id);
    const reopened = await eventsOf(t, 'conversation.reopened', id);
    expect(reopened).toHaveLength(1);
    expect(reopened[0].data.conversation).toMatchObject({ id, status: 'open', snoozed_until: null });
  });

  it.each([
    ['snoozed_until without a status', { snoozed_until: fromNow(3600_000) }, 'snoozed_until goes only with status snoozed'],
    ['snoozed_until with status open', { status: 'open', snoozed_until: fromNow(3600_000) }, 'snoozed_until goes only with status snoozed'],
    ['snoozed_until in the past', { status: 'snoozed', snoozed_until: fromNow(-60_000) }, 'snoozed_until must be in the future'],
    ['status snoozed without snoozed_until', { status: 'snoozed' }, 'snoozed_until is required with status snoozed'],
    ['a time without a time zone', { status: 'snoozed', snoozed_until: '2099-01-01T10:00:00' }, /^snoozed_until must be an ISO 8601 time/],
    ['a time that is no date', { status: 'snoozed', snoozed_until: '2099-13-45T10:00:00Z' }, /^snoozed_until must be an ISO 8601 time/],
    ['words', { status: 'snoozed', snoozed_until: 'tomorrow' }, /^snoozed_until must be an ISO 8601 time/],
    ['null', { status: 'snoozed', snoozed_until: null }, /^snoozed_until must be an ISO 8601 time/],
    [
      'a time in year 9999 that is in year 10000 in UTC',
      { status: 'snoozed', snoozed_until: '9999-12-31T23:59:59-23:59' },
      'snoozed_until must be within the years 0001 to 9999 in UTC',
    ],
  ])('refuses %s with 400 naming snoozed_until, changing nothing', async (_, body, message) => {
    const { id } = await customerWrites(t);
    const before = (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body;
    const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    expect((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body).toEqual(before);
  });

  it('accepts a time with an offset, answered in UTC', async () => {
    const { id } = await customerWrites(t);
    const until = new Date(Date.now() + 3600_000);
    const withOffset = new Date(until.getTime() + 2 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+02:00');
    const answer = await snooze(t, id, withOffset);
    expect(answer.status).toBe(200);
    expect(answer.body.snoozed_until).toBe(new Date(Math.floor(until.getTime() / 1000) * 1000).toISOString());
  });

  it('accepts the last moment of year 9999 in UTC, answered with a four-digit year', async () => {
    const { id } = await customerWrites(t);
    const answer = await snooze(t, id, '9999-12-31T23:59:59+00:00');
    expect(answer.status).toBe(200);
    expect(answer.body.snoozed_until).toBe('9999-12-31T23:59:59.000Z');
  });
});

describeWithPostgresAndRedis('snoozes with two replicas on one PostgreSQL and Redis (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let a: TestApp;
  let b: TestApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, close } = await startTwoInstances());
  });
  afterAll(() => close());

  it('ends each snooze once, whether its time comes or the customer writes as it comes, whichever replica sees it', async () => {
    const conversations: { id: string; phone: string }[] = [];
    for (let i = 0; i < 12; i++) conversations.push(await customerWrites(i % 2 ? a : b));
    // Far enough ahead that twelve snoozes are set before it passes, even on a busy machine.
    const until = fromNow(5000);
    for (const [i, { id }] of conversations.entries()) expect((await snooze(i % 2 ? b : a, id, until)).status).toBe(200);
    // The customers of half of them write the moment the first snooze ends, racing both replicas' wake-ups.
    await eventually(async () => expect((await listed(a, 'status=snoozed')).length).toBeLessThan(conversations.length));
    const writers = conversations.filter((_, i) => i % 2 === 0);
    await Promise.all(writers.map(({ phone }, i) => customerWrites(i % 2 ? a : b, { phone: phone.slice(1), text: 'Still there?' })));
    for (const { id } of conversations) await becomesOpen(a, id);
    // A later snooze ending is the marker that both replicas have looked again since.
    const marker = await customerWrites(a);
    await snooze(b, marker.id, fromNow(1000));
    await becomesOpen(b, marker.id);
    for (const { id } of conversations) expect(await eventsOf(a, 'conversation.reopened', id)).toHaveLength(1);
  });
});

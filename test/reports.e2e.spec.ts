import { parsePublicId } from '../src/common/ids';
import { Database } from '../src/database/database';
import { isOpenAt, type BusinessHours } from '../src/inboxes/business-hours';
import { ReportRepository, type ConversationReportRow } from '../src/reports/report.repository';
import { eventually } from './support/channel';
import { messageWebhook } from './support/channel-fixtures';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

const DEFAULT_INBOX = 'inb_00000000000070008000000000000001';
const WEEKDAYS_9_TO_17: BusinessHours = {
  timezone: 'UTC',
  days: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => [day, [['09:00', '17:00']]])),
  holidays: [],
};
const HOUR = 3600;

interface Figures {
  group: { key: string | null; label: string };
  conversations_opened: number;
  conversations_resolved: number;
  conversations_open: number;
  messages_in: number;
  messages_out: number;
  first_response_seconds: { median: number | null; p90: number | null };
  resolution_seconds: { median: number | null; p90: number | null };
  waiting_seconds: { median: number | null; p90: number | null };
  csat: { average: number | null; count: number; ratings: number[] };
  campaign_sends: number;
}

/**
 * The service's clock set by the test (only `Date`: timers run as usual), so the facts the
 * conversations record carry times the test chose: a week three weeks back, starting a Friday.
 */
const clock = {
  start(at: Date) {
    jest.useFakeTimers({
      now: at,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
  },
  set: (at: Date) => jest.setSystemTime(at),
  stop: () => jest.useRealTimers(),
};

const today = new Date();
const FRIDAY = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 21));
while (FRIDAY.getUTCDay() !== 5) FRIDAY.setUTCDate(FRIDAY.getUTCDate() - 1);
/** The week's day (0: the Friday) at a time of day, UTC. */
const on = (day: number, time: string) =>
  new Date(FRIDAY.getTime() + day * 86_400_000 + (Number(time.slice(0, 2)) * 60 + Number(time.slice(3))) * 60_000);
const dateOf = (day: number) => on(day, '00:00').toISOString().slice(0, 10);
const WEEK = `from=${dateOf(0)}&to=${dateOf(7)}`;

describe('reports: the summary and the CSV of conversations, from facts recorded as conversations change', () => {
  let t: TestApp;
  let admin: string;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };
  let billing: string;

  const patch = (id: string, body: Record<string, unknown>, token = admin) =>
    t.request('PATCH', `/api/v1/conversations/${id}`, { token, body });
  const reply = async (id: string, token: string) =>
    expect(
      (await t.request('POST', `/api/v1/conversations/${id}/messages`, { token, body: { type: 'text', text: 'Here to help' } })).status,
    ).toBe(201);
  const summary = async (query: string, token = admin): Promise<Figures[]> => {
    const answer = await t.request('GET', `/api/v1/reports/summary?${query}`, { token });
    expect(answer.status).toBe(200);
    return answer.body.data as Figures[];
  };
  const rowOf = (rows: Figures[], key: string | null) => rows.find((row) => row.group.key === key)!;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
    alice = await t.createUser({ name: 'Alice Agent' });
    bob = await t.createUser({ name: 'Bob Agent' });
    billing = (
      await t.request('POST', '/api/v1/teams', {
        token: admin,
        body: { name: 'Billing', member_ids: [bob.id], inbox_ids: [DEFAULT_INBOX] },
      })
    ).body.id;
    const configure = (body: Record<string, unknown>) => t.request('PATCH', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin, body });
    await configure({ business_hours: WEEKDAYS_9_TO_17, greeting: { enabled: true, text: 'Thanks, we answer soon.' } });

    clock.start(on(0, '16:00'));
    try {
      // A: the greeting answers at once (automatic: no response); a second message on Sunday keeps the
      // window open; Alice answers on Monday at 10:00 and closes at 11:00.
      const a = await customerWrites(t, { text: 'My parcel is late' });
      clock.set(on(2, '12:00'));
      await customerWrites(t, { phone: a.phone.slice(1), text: 'Anyone there?' });
      clock.set(on(3, '10:00'));
      await patch(a.id, { assigned_to: alice.id });
      await reply(a.id, alice.token);
      clock.set(on(3, '11:00'));
      expect((await patch(a.id, { status: 'closed' }, alice.token)).status).toBe(200);

      // B: Bob's conversation, answered and closed twice: two episodes.
      clock.set(on(4, '09:00'));
      const b = await customerWrites(t, { text: 'How do I pay?' });
      await patch(b.id, { assigned_to: bob.id });
      clock.set(on(4, '09:10'));
      await reply(b.id, bob.token);
      clock.set(on(4, '09:20'));
      await patch(b.id, { status: 'closed' }, bob.token);
      clock.set(on(4, '10:00'));
      await customerWrites(t, { phone: b.phone.slice(1), text: 'One more question' });
      clock.set(on(4, '10:05'));
      await reply(b.id, bob.token);
      clock.set(on(4, '10:30'));
      await patch(b.id, { status: 'closed' }, bob.token);

      // C: Alice takes it after 5 minutes in the queue, hands it to Bob and Billing, who answers and closes.
      await t.request('PATCH', `/api/v1/inboxes/${DEFAULT_INBOX}`, {
        token: admin,
        body: { csat: { enabled: true, question: 'How did we do?' } },
      });
      clock.set(on(5, '09:00'));
      const c = await customerWrites(t, { text: 'Wrong invoice' });
      clock.set(on(5, '09:05'));
      await patch(c.id, { assigned_to: alice.id });
      clock.set(on(5, '09:30'));
      await patch(c.id, { assigned_to: bob.id, team_id: billing });
      clock.set(on(5, '09:40'));
      await reply(c.id, bob.token);
      clock.set(on(5, '10:00'));
      await patch(c.id, { status: 'closed' }, bob.token);
      conversations.push(a.id, b.id, c.id);
      phoneOfC = c.phone;
    } finally {
      clock.stop();
    }
    // The customer of C rates it 4 (now: a rating counts for the episode it rates, whenever it comes).
    const survey = (
      await t.request('GET', `/api/v1/conversations/${conversations[2]}/messages?limit=100`, { token: admin })
    ).body.data.find((message: { type: string }) => message.type === 'interactive');
    const wamid = await eventually(async () => {
      const [row] = await t.sql<{ channel_message_id: string | null }>('SELECT channel_message_id FROM messages WHERE id = $1', [
        parsePublicId('msg', survey!.id),
      ]);
      expect(row.channel_message_id).toEqual(expect.any(String));
      return row.channel_message_id!;
    });
    const rated = await t.request('POST', '/api/webhooks/messaging', {
      body: messageWebhook(phoneOfC.slice(1), {
        type: 'interactive',
        context: { from: '15550783881', id: wamid },
        interactive: { type: 'list_reply', list_reply: { id: 'csat_4', title: '4' } },
      }),
    });
    expect(rated.status).toBe(200);
    await eventually(async () =>
      expect((await t.request('GET', `/api/v1/conversations/${conversations[2]}`, { token: admin })).body.csat).toMatchObject({
        rating: 4,
      }),
    );
  });
  const conversations: string[] = [];
  let phoneOfC = '';
  afterAll(() => t.close());

  it('by day: every day of the period, the first response counted from the first customer message, the greeting before it not an answer', async () => {
    const days = await summary(`${WEEK}&group_by=day`);
    expect(days.map((row) => row.group.key)).toEqual([0, 1, 2, 3, 4, 5, 6].map(dateOf));
    const [friday, saturday, sunday, monday, tuesday, wednesday, thursday] = days;
    expect(friday).toMatchObject({
      conversations_opened: 1,
      conversations_resolved: 0,
      conversations_open: 1,
      messages_in: 1,
      messages_out: 1,
      first_response_seconds: { median: null, p90: null },
    });
    expect(saturday).toMatchObject({ conversations_opened: 0, conversations_open: 1, messages_in: 0, messages_out: 0 });
    expect(sunday).toMatchObject({ conversations_open: 1, messages_in: 1 });
    expect(monday).toMatchObject({
      conversations_opened: 0,
      conversations_resolved: 1,
      conversations_open: 0,
      messages_out: 1,
      first_response_seconds: { median: 66 * HOUR, p90: 66 * HOUR },
      resolution_seconds: { median: 67 * HOUR, p90: 67 * HOUR },
      waiting_seconds: { median: 66 * HOUR, p90: 66 * HOUR },
    });
    expect(tuesday).toMatchObject({
      conversations_opened: 2,
      conversations_resolved: 2,
      conversations_open: 0,
      messages_in: 2,
      messages_out: 3,
      first_response_seconds: { median: 450, p90: 570 },
      resolution_seconds: { median: 1500, p90: 1740 },
    });
    expect(wednesday).toMatchObject({
      conversations_opened: 1,
      messages_out: 3,
      conversations_resolved: 1,
      first_response_seconds: { median: 2400, p90: 2400 },
      resolution_seconds: { median: 3600, p90: 3600 },
      waiting_seconds: { median: 300, p90: 300 },
      csat: { average: 4, count: 1, ratings: [0, 0, 0, 1, 0] },
    });
    expect(thursday).toMatchObject({
      conversations_opened: 0,
      conversations_resolved: 0,
      conversations_open: 0,
      messages_in: 0,
      messages_out: 0,
    });
  });

  it("in business hours: Friday 16:00 to Monday 10:00 is the hour before Friday's close and the hour after Monday's opening", async () => {
    const days = await summary(`${WEEK}&group_by=day&business_hours=true`);
    expect(rowOf(days, dateOf(3))).toMatchObject({
      first_response_seconds: { median: 2 * HOUR, p90: 2 * HOUR },
      resolution_seconds: { median: 3 * HOUR, p90: 3 * HOUR },
    });
    // Within the hours the figures are the calendar's.
    expect(rowOf(days, dateOf(4))).toMatchObject({ first_response_seconds: { median: 450 }, resolution_seconds: { median: 1500 } });
  });

  it('by week (Monday to Sunday) and in total: medians and 90th percentiles over every episode of the group', async () => {
    const weeks = await summary(`${WEEK}&group_by=week`);
    expect(weeks.map((row) => row.group)).toEqual([
      { key: dateOf(-4), label: `Week of ${dateOf(-4)}` },
      { key: dateOf(3), label: `Week of ${dateOf(3)}` },
    ]);
    expect(weeks[0]).toMatchObject({ conversations_opened: 1, conversations_resolved: 0, conversations_open: 1, messages_in: 2 });
    expect(weeks[1]).toMatchObject({ conversations_opened: 3, conversations_resolved: 4, conversations_open: 0, messages_in: 3 });
    const [total] = await summary(WEEK);
    expect(total).toMatchObject({
      group: { key: 'total', label: 'Total' },
      conversations_opened: 4,
      conversations_resolved: 4,
      conversations_open: 0,
      messages_in: 5,
      first_response_seconds: { median: 1500, p90: 167_040 },
    });
    expect(weeks[1].first_response_seconds).toEqual(total.first_response_seconds);
  });

  it('by agent: the first response is who answered, the resolution who held it at the close, a hand-over counts for whom it came to', async () => {
    const agents = await summary(`${WEEK}&group_by=agent`);
    expect(rowOf(agents, alice.id)).toMatchObject({
      group: { key: alice.id, label: 'Alice Agent' },
      conversations_opened: 2,
      conversations_resolved: 1,
      messages_out: 1,
      messages_in: 0,
      first_response_seconds: { median: 66 * HOUR },
      csat: { count: 0 },
    });
    expect(rowOf(agents, bob.id)).toMatchObject({
      conversations_opened: 3,
      conversations_resolved: 3,
      messages_out: 3,
      messages_in: 1,
      first_response_seconds: { median: 600, p90: 2040 },
      resolution_seconds: { median: 1800, p90: 3240 },
      csat: { average: 4, count: 1 },
    });
    expect(rowOf(agents, null)).toMatchObject({ group: { label: 'Unassigned' }, messages_in: 4, messages_out: 4 });
    const forBob = await summary(`${WEEK}&user_id=${bob.id}`);
    expect(forBob[0]).toMatchObject({ conversations_resolved: 3, first_response_seconds: { median: 600 } });
  });

  it("by team: the reassigned conversation is Billing's from the hand-over; by inbox, everything is the default inbox's", async () => {
    const teams = await summary(`${WEEK}&group_by=team`);
    expect(rowOf(teams, billing)).toMatchObject({
      group: { label: 'Billing' },
      conversations_opened: 1,
      conversations_resolved: 1,
      first_response_seconds: { median: 2400 },
    });
    expect(rowOf(teams, null)).toMatchObject({ group: { label: 'No team' }, conversations_resolved: 3 });
    const [inbox] = await summary(`${WEEK}&group_by=inbox`);
    expect(inbox).toMatchObject({ group: { key: DEFAULT_INBOX }, conversations_opened: 4, conversations_resolved: 4 });
  });

  it("an agent sees their inboxes' totals, by agent themselves, by team their teams, in the CSV their episodes; others' are a 403", async () => {
    const mine = await summary(`${WEEK}&group_by=agent`, alice.token);
    expect(mine.map((row) => row.group.key)).toEqual([alice.id]);
    const [total] = await summary(WEEK, alice.token);
    expect(total.conversations_resolved).toBe(4);
    const refused = await t.request('GET', `/api/v1/reports/summary?${WEEK}&user_id=${bob.id}`, { token: alice.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/own figures/);
    // By team, only their teams (Alice is in none; Bob is in Billing); the CSV, only the episodes they held last.
    expect(await summary(`${WEEK}&group_by=team`, alice.token)).toEqual([]);
    expect((await summary(`${WEEK}&group_by=team`, bob.token)).map((row) => row.group.key)).toEqual([billing]);
    expect((await t.request('GET', `/api/v1/reports/summary?${WEEK}&team_id=${billing}`, { token: alice.token })).status).toBe(403);
    const csv = (await t.request('GET', `/api/v1/reports/conversations.csv?${WEEK}`, { token: alice.token })).text
      .trim()
      .split('\n')
      .slice(1);
    expect(csv.map((line) => line.split(',')[0])).toEqual([conversations[0]]);
    const outsider = await t.createUser({ inbox_ids: [] });
    const [nothing] = await summary(WEEK, outsider.token);
    expect(nothing).toMatchObject({ conversations_opened: 0, messages_in: 0 });
  });

  it('the CSV has one row per conversation, oldest first, with the contract columns; a reopened one sums its openings', async () => {
    const answer = await t.request('GET', `/api/v1/reports/conversations.csv?${WEEK}`, { token: admin });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/csv/);
    const [header, ...lines] = answer.text.trim().split('\n');
    expect(header).toBe(
      'conversation_id,inbox_id,contact_id,assigned_to,team_id,opened_at,first_response_at,resolved_at,first_response_seconds,' +
        'resolution_seconds,csat_rating,first_response_by,waiting_seconds,openings',
    );
    const rows = lines.map((line) => line.split(','));
    expect(rows.map((row) => row[0])).toEqual(conversations);
    expect(rows[0].slice(5)).toEqual([
      on(0, '16:00').toISOString(),
      on(3, '10:00').toISOString(),
      on(3, '11:00').toISOString(),
      String(66 * HOUR),
      String(67 * HOUR),
      '',
      alice.id,
      String(66 * HOUR),
      '1',
    ]);
    expect(rows[0][3]).toBe(alice.id);
    // B, closed twice: its first opening and first response, its last close, 20 and 30 minutes open.
    expect(rows[1].slice(5)).toEqual([
      on(4, '09:00').toISOString(),
      on(4, '09:10').toISOString(),
      on(4, '10:30').toISOString(),
      '600',
      '3000',
      '',
      bob.id,
      '0',
      '2',
    ]);
    expect(rows[2]).toEqual([
      conversations[2],
      DEFAULT_INBOX,
      expect.stringMatching(/^ct_/),
      bob.id,
      billing,
      on(5, '09:00').toISOString(),
      on(5, '09:40').toISOString(),
      on(5, '10:00').toISOString(),
      '2400',
      '3600',
      '4',
      bob.id,
      '300',
      '1',
    ]);
    const business = await t.request('GET', `/api/v1/reports/conversations.csv?${WEEK}&business_hours=true`, { token: admin });
    expect(business.text.split('\n')[1].split(',').slice(8, 10)).toEqual([String(2 * HOUR), String(3 * HOUR)]);
  });

  it('a period that ends before it starts, more days than a summary groups by, and every field empty, of the wrong kind or repeated is a 400 naming it, on the summary and the CSV', async () => {
    const problems: [string, RegExp][] = [
      [`from=${dateOf(7)}&to=${dateOf(0)}`, /from must be before to/],
      ['group_by=day&from=2010-01-01&to=2026-06-01', /group_by=day answers at most 3660 days/],
      ['group_by=month', /group_by must be one of day, week, agent, team, inbox/],
      ['time_zone=Mars/Base', /time_zone must be an IANA time zone/],
      ['business_hours=yes', /business_hours must be true or false/],
      ['user_id=42', /user_id/],
      // Every field empty, of the wrong kind, or given twice (an array).
      ...['from', 'to', 'inbox_id', 'team_id', 'user_id', 'business_hours', 'time_zone', 'group_by'].flatMap(
        (field): [string, RegExp][] => [
          [`${field}=`, new RegExp(field)],
          [`${field}=42`, new RegExp(field)],
          [`${field}=a&${field}=b`, new RegExp(field)],
        ],
      ),
      ['from=2026-11-01T09:30', /from must be a date .* or a date-time with its time zone/],
      ['time_zone=CET', /time_zone must be an IANA time zone/],
      // The year 0000 is 1 BC, which PostgreSQL writes as 0001.
      ['from=0000-01-01&to=0000-01-05', /^from must be within the years 0001 to 9999 in UTC$/],
    ];
    for (const path of ['/api/v1/reports/summary', '/api/v1/reports/conversations.csv'])
      for (const [query, error] of problems) {
        if (path.endsWith('.csv') && query.startsWith('group_by')) continue;
        const answer = (await t.request('GET', `${path}?${query}`, { token: admin })) as { status: number; body: { error?: string } };
        expect({ path, query, status: answer.status, error: answer.body.error }).toEqual({
          path,
          query,
          status: 400,
          error: expect.stringMatching(error),
        });
      }
  });

  it('sums a period of any length, by week and in total, and the CSV of it', async () => {
    for (const query of ['from=2010-01-01&to=2026-06-01', 'from=2010-01-01&to=2026-06-01&group_by=week'])
      expect((await summary(query)).length).toBeGreaterThan(0);
    // 3,660 local days, an hour longer than 3,660 times 24 hours across Berlin's clock changes.
    expect(await summary('group_by=day&time_zone=Europe/Berlin&from=2016-10-25&to=2026-11-02')).toHaveLength(3660);
    const csv = await t.request('GET', '/api/v1/reports/conversations.csv?from=2010-01-01&to=2036-01-01', { token: admin });
    expect(csv.text.trim().split('\n')).toHaveLength(1 + conversations.length);
  });

  it('days follow the time zone asked for: Friday 16:00 UTC is Saturday 01:00 in Tokyo', async () => {
    const [friday, saturday] = await summary(`from=${dateOf(0)}&to=${dateOf(2)}&time_zone=Asia/Tokyo&group_by=day`);
    expect([friday.group.key, saturday.group.key]).toEqual([dateOf(0), dateOf(1)]);
    expect(friday).toMatchObject({ conversations_opened: 0, messages_in: 0 });
    expect(saturday).toMatchObject({ conversations_opened: 1, messages_in: 1, conversations_open: 1 });
  });

  it('business_seconds agrees with the inbox hours minute by minute, across a weekend, a holiday and a clock change, also inside whole weeks', async () => {
    const hours: BusinessHours = {
      timezone: 'Europe/Berlin',
      days: {
        mon: [
          ['08:00', '12:00'],
          ['13:00', '17:30'],
        ],
        tue: [['09:00', '24:00']],
        sat: [['00:00', '02:00']],
        fri: [['22:00', '24:00']],
        // Open across the clock's change: the Sunday of 25 October 2026 has 25 hours in Berlin.
        sun: [['00:00', '24:00']],
      },
      // A date the calendar has not, as an inbox saved before holidays were checked against the calendar may hold.
      holidays: ['2026-10-27', '2026-09-22', '2026-09-25', '2026-02-30'],
    };
    const cases = [
      ['2026-10-23T18:00:00Z', '2026-10-28T06:00:00Z'],
      ['2026-10-26T07:15:00Z', '2026-10-26T15:45:00Z'],
      ['2026-10-30T20:00:00Z', '2026-11-03T10:00:00Z'],
      ['2026-11-02T11:30:00Z', '2026-11-02T11:31:00Z'],
      // Weeks counted whole in the middle, a holiday among them.
      ['2026-09-01T10:00:00Z', '2026-10-15T12:30:00Z'],
      // Whole weeks in the middle, one of them with the clock's change; and February, around the date that is none.
      ['2026-10-05T10:00:00Z', '2026-11-10T10:00:00Z'],
      ['2026-02-02T10:00:00Z', '2026-03-20T10:00:00Z'],
    ];
    for (const [since, till] of cases) {
      // Every boundary of these hours, and every clock change, is on a quarter hour: a span between quarter hours is read by quarters.
      const [start, end] = [Date.parse(since), Date.parse(till)];
      const step = start % 900_000 === 0 && end % 900_000 === 0 ? 900_000 : 60_000;
      let minutes = 0;
      for (let at = start; at < end; at += step) if (isOpenAt(hours, new Date(at))) minutes += step / 60_000;
      const [row] = await t.sql<{ seconds: number }>('SELECT business_seconds($1::jsonb, $2, $3) AS seconds', [
        JSON.stringify(hours),
        since,
        till,
      ]);
      expect({ since, till, seconds: row.seconds }).toEqual({ since, till, seconds: minutes * 60 });
    }
  });
});

describe('reports: the facts through every path that changes a conversation', () => {
  let t: TestApp;
  let admin: string;
  const MONDAY = new Date(FRIDAY.getTime() - 4 * 86_400_000);
  const at = (day: number, time: string) => new Date(on(day, time).getTime() - 4 * 86_400_000);
  const PERIOD = `from=${MONDAY.toISOString().slice(0, 10)}&to=${FRIDAY.toISOString().slice(0, 10)}`;

  const patch = (id: string, body: Record<string, unknown>) => t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body });
  const summary = async (query: string): Promise<Figures[]> => {
    const answer = await t.request('GET', `/api/v1/reports/summary?${query}`, { token: admin });
    expect(answer.status).toBe(200);
    return answer.body.data as Figures[];
  };
  const rowOf = (rows: Figures[], key: string | null) => rows.find((row) => row.group.key === key);
  /** A team of these members working these inboxes (the default inbox unless told); its id. */
  const team = async (name: string, memberIds: string[], inboxIds = [DEFAULT_INBOX]): Promise<string> => {
    const created = await t.request('POST', '/api/v1/teams', { token: admin, body: { name, member_ids: memberIds, inbox_ids: inboxIds } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  /** The customer who wrote from `fromPhone` merged into the one who wrote from `intoPhone`. */
  const mergeCustomers = async (intoPhone: string, fromPhone: string) => {
    const contactOf = async (phone: string) =>
      (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token: admin })).body.data[0].id;
    const merged = await t.request('POST', `/api/v1/contacts/${await contactOf(intoPhone)}/merge`, {
      token: admin,
      body: { from: await contactOf(fromPhone) },
    });
    expect(merged.status).toBe(200);
  };

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  it("counts a conversation handed to an agent once when a team is set on it after, and the team's once", async () => {
    const agent = await t.createUser({ name: 'Kept Kim' });
    const other = await t.createUser({ name: 'Next Nia' });
    const returns = await team('Returns', [agent.id, other.id]);
    clock.start(at(0, '09:00'));
    try {
      const { id } = await customerWrites(t, { text: 'A return' });
      clock.set(at(0, '09:10'));
      expect((await patch(id, { assigned_to: agent.id })).status).toBe(200);
      clock.set(at(0, '09:20'));
      expect((await patch(id, { team_id: returns })).status).toBe(200);
      clock.set(at(0, '09:30'));
      expect((await patch(id, { assigned_to: other.id })).status).toBe(200);
    } finally {
      clock.stop();
    }
    const agents = await summary(`${PERIOD}&group_by=agent`);
    expect(rowOf(agents, agent.id)).toMatchObject({ conversations_opened: 1, conversations_open: 0 });
    expect(rowOf(agents, other.id)).toMatchObject({ conversations_opened: 1, conversations_open: 1 });
    expect(rowOf(await summary(`${PERIOD}&group_by=team`), returns)).toMatchObject({ conversations_opened: 1, conversations_open: 1 });
  });

  it('credits a resolution to whoever held the conversation at the close: given back to the queue first, nobody', async () => {
    const agent = await t.createUser({ name: 'Gone Gil' });
    clock.start(at(1, '09:00'));
    try {
      const { id } = await customerWrites(t, { text: 'Hello' });
      await patch(id, { assigned_to: agent.id });
      clock.set(at(1, '10:00'));
      await patch(id, { assigned_to: null });
      clock.set(at(1, '11:00'));
      await patch(id, { status: 'closed' });
    } finally {
      clock.stop();
    }
    const agents = await summary(`from=${at(1, '00:00').toISOString()}&to=${at(2, '00:00').toISOString()}&group_by=agent`);
    expect(rowOf(agents, agent.id)).toMatchObject({ conversations_resolved: 0, conversations_opened: 1 });
    // The queue's: 2 hours in it, before the agent and after.
    expect(rowOf(agents, null)).toMatchObject({ conversations_resolved: 1, waiting_seconds: { median: 3600 } });
  });

  it("keeps a merged customer's conversation history: its resolved episode counts for the conversation that stays", async () => {
    clock.start(at(2, '09:00'));
    let stays = { id: '', phone: '' };
    let from = { id: '', phone: '' };
    try {
      from = await customerWrites(t, { text: 'From my work phone' });
      clock.set(at(2, '09:30'));
      expect(
        (await t.request('POST', `/api/v1/conversations/${from.id}/messages`, { token: admin, body: { type: 'text', text: 'Hi' } })).status,
      ).toBe(201);
      clock.set(at(2, '10:00'));
      await patch(from.id, { status: 'closed' });
      clock.set(at(2, '11:00'));
      stays = await customerWrites(t, { text: 'From my own phone' });
    } finally {
      clock.stop();
    }
    await mergeCustomers(stays.phone, from.phone);
    const day = `from=${at(2, '00:00').toISOString()}&to=${at(3, '00:00').toISOString()}`;
    const [total] = await summary(day);
    expect(total).toMatchObject({ conversations_opened: 2, conversations_resolved: 1, first_response_seconds: { median: 1800 } });
    // One row for the conversation that stays, over both episodes: its last one still open.
    const csv = (await t.request('GET', `/api/v1/reports/conversations.csv?${day}`, { token: admin })).text.trim().split('\n').slice(1);
    expect(csv.map((line) => line.split(',')).map((row) => [row[0], row[7], row[13]])).toEqual([[stays.id, '', '2']]);
  });

  it("keeps the answering team of a merged customer's open conversation with the conversation that stays", async () => {
    const agent = await t.createUser({ name: 'Merging Meg' });
    const squad = await team('Merged squad', [agent.id]);
    let from = { id: '', phone: '' };
    let into = { id: '', phone: '' };
    clock.start(at(6, '09:00'));
    try {
      from = await customerWrites(t, { text: 'From my first phone' });
      await patch(from.id, { assigned_to: agent.id, team_id: squad });
      clock.set(at(6, '09:20'));
      const answer = await t.request('POST', `/api/v1/conversations/${from.id}/messages`, {
        token: agent.token,
        body: { type: 'text', text: 'On it' },
      });
      expect(answer.status).toBe(201);
      clock.set(at(6, '10:00'));
      into = await customerWrites(t, { text: 'From my second phone' });
    } finally {
      clock.stop();
    }
    await mergeCustomers(into.phone, from.phone);
    const teams = await summary(`from=${at(6, '00:00').toISOString()}&to=${at(7, '00:00').toISOString()}&group_by=team`);
    expect(rowOf(teams, squad)).toMatchObject({ first_response_seconds: { median: 1200 } });
  });

  it('counts a first response for the team that held the conversation when it was given, its resolution for the team at the close', async () => {
    const agent = await t.createUser({ name: 'Moving Mo' });
    const [answering, closing] = [await team('Answering', [agent.id]), await team('Closing', [agent.id])];
    clock.start(at(4, '09:00'));
    try {
      const { id } = await customerWrites(t, { text: 'Where is my order?' });
      await patch(id, { assigned_to: agent.id, team_id: answering });
      clock.set(at(4, '09:15'));
      const answer = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
        token: agent.token,
        body: { type: 'text', text: 'Looking into it' },
      });
      expect(answer.status).toBe(201);
      clock.set(at(4, '09:30'));
      await patch(id, { team_id: closing });
      clock.set(at(4, '10:00'));
      await patch(id, { status: 'closed' });
    } finally {
      clock.stop();
    }
    const teams = await summary(`from=${at(4, '00:00').toISOString()}&to=${at(5, '00:00').toISOString()}&group_by=team`);
    expect(rowOf(teams, answering)).toMatchObject({ first_response_seconds: { median: 900 }, conversations_resolved: 0 });
    expect(rowOf(teams, closing)).toMatchObject({ first_response_seconds: { median: null }, conversations_resolved: 1 });
  });

  it("keeps an agent to their inboxes' figures and CSV; an admin groups by inbox and filters by inbox and team", async () => {
    const sales = (
      await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Sales', phone_number_id: '5550199', access_token: 'token' },
      })
    ).body.id as string;
    const seller = await t.createUser({ name: 'Sales Sam', inbox_ids: [sales] });
    const desk = await team('Desk', [seller.id], [sales]);
    let sold = '';
    clock.start(at(5, '09:00'));
    try {
      await customerWrites(t, { text: 'In the default inbox' });
      const contact = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: '+4915550199', name: 'Buyer' } });
      const opened = await t.request('POST', '/api/v1/conversations', {
        token: admin,
        body: { contact_id: contact.body.id, inbox_id: sales },
      });
      expect(opened.status).toBe(201);
      sold = opened.body.id;
      await patch(sold, { assigned_to: seller.id, team_id: desk });
      clock.set(at(5, '10:00'));
      await patch(sold, { status: 'closed' });
    } finally {
      clock.stop();
    }
    const day = `from=${at(5, '00:00').toISOString()}&to=${at(6, '00:00').toISOString()}`;
    const inboxes = await summary(`${day}&group_by=inbox`);
    expect(inboxes.map((row) => [row.group.key, row.group.label, row.conversations_opened, row.conversations_resolved])).toEqual(
      expect.arrayContaining([
        [DEFAULT_INBOX, 'Default', 1, 0],
        [sales, 'Sales', 1, 1],
      ]),
    );
    expect(await summary(`${day}&inbox_id=${sales}`)).toMatchObject([{ conversations_opened: 1, conversations_resolved: 1 }]);
    expect(await summary(`${day}&team_id=${desk}`)).toMatchObject([{ conversations_opened: 1, conversations_resolved: 1 }]);
    const theirs = async (query: string) => {
      const answer = await t.request('GET', `/api/v1/reports/summary?${query}`, { token: seller.token });
      expect(answer.status).toBe(200);
      return answer.body.data as Figures[];
    };
    expect(await theirs(day)).toMatchObject([{ conversations_opened: 1, conversations_resolved: 1 }]);
    expect(await theirs(`${day}&inbox_id=${sales}`)).toMatchObject([{ conversations_opened: 1, conversations_resolved: 1 }]);
    const elsewhere = await t.request('GET', `/api/v1/reports/summary?${day}&inbox_id=${DEFAULT_INBOX}`, { token: seller.token });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual({ error: 'Inbox not found' });
    expect((await theirs(`${day}&group_by=inbox`)).map((row) => row.group.key)).toEqual([sales]);
    const csv = (await t.request('GET', `/api/v1/reports/conversations.csv?${day}`, { token: seller.token })).text.trim().split('\n');
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual([sold]);
  });

  it("pages the CSV's conversations one at a time, each once, each over the episodes of the agent asked for", async () => {
    const [first, second] = [await t.createUser({ name: 'First Fay' }), await t.createUser({ name: 'Second Sid' })];
    let reopened = { id: '', phone: '' };
    clock.start(at(7, '09:00'));
    try {
      reopened = await customerWrites(t, { text: 'Hello' });
      await patch(reopened.id, { assigned_to: first.id });
      clock.set(at(7, '09:30'));
      await patch(reopened.id, { status: 'closed' });
      clock.set(at(7, '10:00'));
      await customerWrites(t, { text: 'Another one' });
      clock.set(at(7, '11:00'));
      await customerWrites(t, { phone: reopened.phone.slice(1), text: 'Me again' });
      await patch(reopened.id, { assigned_to: second.id });
      clock.set(at(7, '11:45'));
      await patch(reopened.id, { status: 'closed' });
    } finally {
      clock.stop();
    }
    const reports = t.app.get(ReportRepository);
    const db = t.app.get(Database).db;
    const pages = async (userId?: string): Promise<ConversationReportRow[]> => {
      const rows: ConversationReportRow[] = [];
      const filter = { from: at(7, '00:00'), to: at(8, '00:00'), businessHours: false, userId, visibleInboxes: null };
      let cursor: string | undefined;
      do {
        const page = await reports.conversations(db, filter, { limit: 1, cursor });
        rows.push(...page.data);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return rows;
    };
    const reopenedId = parsePublicId('conv', reopened.id)!;
    const all = await pages();
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ conversation_id: reopenedId, openings: 2, resolution_seconds: 1800 + 2700 });
    expect(all[0].opened_at).toEqual(at(7, '09:00'));
    // Each agent's row covers only the episode they held: the second agent's starts at the reopening.
    const [ofFirst] = await pages(parsePublicId('user', first.id)!);
    expect(ofFirst).toMatchObject({ conversation_id: reopenedId, openings: 1, resolution_seconds: 1800 });
    const [ofSecond] = await pages(parsePublicId('user', second.id)!);
    expect(ofSecond).toMatchObject({ conversation_id: reopenedId, openings: 1, resolution_seconds: 2700 });
    expect(ofSecond.opened_at).toEqual(at(7, '11:00'));
  });

  it("ends a removed agent's hold when they are removed, not at the conversation's last change", async () => {
    const agent = await t.createUser({ name: 'Leaving Lou' });
    clock.start(at(3, '09:00'));
    try {
      const { id } = await customerWrites(t, { text: 'Hello' });
      await patch(id, { assigned_to: agent.id });
    } finally {
      clock.stop();
    }
    const removedAt = Date.now();
    expect((await t.request('DELETE', `/api/v1/users/${agent.id}`, { token: admin })).status).toBe(204);
    const holds = await t.sql<{ user_id: string | null; ended_at: Date | null }>(
      'SELECT user_id, ended_at FROM conversation_holds WHERE user_id = $1',
      [parsePublicId('user', agent.id)],
    );
    expect(holds).toHaveLength(1);
    expect(holds[0].ended_at!.getTime()).toBeGreaterThanOrEqual(removedAt - 1000);
  });
});

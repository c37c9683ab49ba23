import { DataSource } from 'typeorm';
import { encodeCursor } from '../src/common/pagination';
import { ListNotificationsQuery } from '../src/notifications/notification.dto';
import type { NotificationType } from '../src/notifications/notification.entity';
import { Database } from '../src/database/database';
import { query } from '../src/database/sql';
import { NotificationRepository } from '../src/notifications/notification.repository';
import { NotificationsService } from '../src/notifications/notifications.service';
import { createConversation } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';
import { clockPast, nextMillisecond } from './support/clock';

/** The stored uuid behind the `user_<hex>` the API answers. */
const uuidOf = (publicId: string): string => publicId.replace(/^[a-z]+_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

describe('notifications', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** Creates a notification for the user (public id) the way other modules do, inside a transaction's manager. */
  const notify = (userId: string, fields: { type?: NotificationType; conversationId?: string | null; text?: string } = {}) =>
    t.app.get(NotificationsService).notify(t.app.get(Database).db, {
      userId: uuidOf(userId),
      type: fields.type ?? 'message.received',
      conversationId: fields.conversationId ?? null,
      text: fields.text ?? 'A customer wrote',
    });

  const list = async (token: string, query = '') => {
    const answer = await t.request('GET', `/api/v1/notifications${query}`, { token });
    expect(answer.status).toBe(200);
    return answer.body as { data: { id: string; text: string; read_at: string | null }[]; next_cursor: string | null };
  };

  it('answers 401 without a token', async () => {
    const answer = await t.request('GET', '/api/v1/notifications');
    expect(answer.status).toBe(401);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect((await t.request('DELETE', '/api/v1/notifications')).status).toBe(401);
  });

  it("lists the caller its own notifications in the documented shape, never another user's", async () => {
    const ana = await t.createUser();
    const bob = await t.createUser();
    await notify(ana.id, { type: 'conversation.assigned', text: 'for Ana' });
    await notify(bob.id, { text: 'for Bob' });
    const page = await list(ana.token);
    expect(page).toEqual({
      data: [
        {
          id: expect.stringMatching(/^ntf_[0-9a-f]{32}$/),
          type: 'conversation.assigned',
          conversation_id: null,
          text: 'for Ana',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          read_at: null,
        },
      ],
      next_cursor: null,
    });
    expect((await list(bob.token)).data.map((n) => n.text)).toEqual(['for Bob']);
  });

  it('presents the conversation as a conv_ id', async () => {
    const ana = await t.createUser();
    const { id: conversationId } = await createConversation(t);
    await notify(ana.id, { conversationId });
    expect((await list(ana.token)).data[0]).toMatchObject({ conversation_id: `conv_${conversationId.replace(/-/g, '')}` });
  });

  it('lists newest first', async () => {
    const ana = await t.createUser();
    for (const text of ['first', 'second', 'third']) {
      await notify(ana.id, { text });
      await nextMillisecond();
    }
    expect((await list(ana.token)).data.map((n) => n.text)).toEqual(['third', 'second', 'first']);
  });

  it('walks every notification exactly once with limit and next_cursor', async () => {
    const ana = await t.createUser();
    // Created back to back, several share a millisecond: the id breaks the tie.
    for (let i = 0; i < 7; i++) await notify(ana.id, { text: `n${i}` });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(ana.token, cursor ? `?limit=3&cursor=${cursor}` : '?limit=3');
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((n) => n.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual((await list(ana.token, '?limit=100')).data.map((n) => n.id));
    expect(new Set(seen).size).toBe(7);
  });

  it('refuses a cursor that is not one of this list with 400', async () => {
    const ana = await t.createUser();
    const answer = await t.request('GET', '/api/v1/notifications?cursor=not-a-cursor', { token: ana.token });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'cursor is not a cursor returned by this list' });
  });

  it('lists only the unread ones with unread=true, and all with unread=false', async () => {
    const ana = await t.createUser();
    await notify(ana.id, { text: 'will be read' });
    await notify(ana.id, { text: 'stays unread' });
    const willBeRead = (await list(ana.token)).data.find((n) => n.text === 'will be read')!;
    expect((await t.request('POST', `/api/v1/notifications/${willBeRead.id}/read`, { token: ana.token })).status).toBe(200);
    expect((await list(ana.token, '?unread=true')).data.map((n) => n.text)).toEqual(['stays unread']);
    expect((await list(ana.token, '?unread=false')).data.map((n) => n.text).sort()).toEqual(['stays unread', 'will be read']);
  });

  it.each([['yes'], ['1'], ['']])('refuses unread=%s with 400 naming unread', async (value) => {
    const ana = await t.createUser();
    const answer = await t.request('GET', `/api/v1/notifications?unread=${value}`, { token: ana.token });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'unread must be true or false' });
  });

  it('marks a notification read, answering it with read_at set', async () => {
    const ana = await t.createUser();
    await notify(ana.id, { type: 'conversation.assigned', text: 'assigned' });
    const [unread] = (await list(ana.token)).data;
    const before = Date.now();
    const answer = await t.request('POST', `/api/v1/notifications/${unread.id}/read`, { token: ana.token });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...unread, read_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(Date.parse(answer.body.read_at as string)).toBeGreaterThanOrEqual(before - 1000);
    expect((await list(ana.token)).data[0]).toEqual(answer.body);
  });

  it('answers 200 with the first read_at when marked read again', async () => {
    const ana = await t.createUser();
    await notify(ana.id);
    const [unread] = (await list(ana.token)).data;
    const first = await t.request('POST', `/api/v1/notifications/${unread.id}/read`, { token: ana.token });
    expect(first.body.read_at).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/));
    // The clock past the first read_at, so a second stamp would show.
    await clockPast(Date.parse(first.body.read_at as string));
    const second = await t.request('POST', `/api/v1/notifications/${unread.id}/read`, { token: ana.token });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it("answers 404 for another user's notification and leaves it unread", async () => {
    const ana = await t.createUser();
    const bob = await t.createUser();
    await notify(bob.id);
    const [bobs] = (await list(bob.token)).data;
    const answer = await t.request('POST', `/api/v1/notifications/${bobs.id}/read`, { token: ana.token });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Notification not found' });
    expect((await list(bob.token)).data[0].read_at).toBeNull();
  });

  it.each([
    ['an unknown id', 'ntf_0000000000007000800000000000000a'],
    ['an id with another prefix', 'conv_0000000000007000800000000000000a'],
    ['a malformed id', 'ntf_42'],
  ])('answers 404 for %s', async (_, id) => {
    const ana = await t.createUser();
    const answer = await t.request('POST', `/api/v1/notifications/${id}/read`, { token: ana.token });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Notification not found' });
  });

  it("marks all of the caller's unread notifications read with 204, nobody else's", async () => {
    const ana = await t.createUser();
    const bob = await t.createUser();
    await notify(ana.id, { text: 'a1' });
    await notify(ana.id, { text: 'a2' });
    await notify(bob.id, { text: 'b1' });
    const answer = await t.request('POST', '/api/v1/notifications/read', { token: ana.token });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect((await list(ana.token, '?unread=true')).data).toEqual([]);
    expect((await list(ana.token)).data.map((n) => n.text).sort()).toEqual(['a1', 'a2']);
    expect((await list(ana.token)).data.every((n) => n.read_at !== null)).toBe(true);
    expect((await list(bob.token, '?unread=true')).data.map((n) => n.text)).toEqual(['b1']);
  });

  it("clears all of the caller's notifications with 204, keeping other users'", async () => {
    const ana = await t.createUser();
    const bob = await t.createUser();
    await notify(ana.id, { text: 'a1' });
    await notify(ana.id, { text: 'a2' });
    await notify(bob.id, { text: 'b1' });
    expect((await list(ana.token)).data.map((n) => n.text).sort()).toEqual(['a1', 'a2']);
    const answer = await t.request('DELETE', '/api/v1/notifications', { token: ana.token });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect(await list(ana.token)).toEqual({ data: [], next_cursor: null });
    expect((await list(bob.token)).data.map((n) => n.text)).toEqual(['b1']);
  });
  it("counts the caller's unread notifications, nobody else's, as {unread: n}", async () => {
    const ana = await t.createUser();
    const bob = await t.createUser();
    const count = async (token: string) => {
      const answer = await t.request('GET', '/api/v1/notifications/unread-count', { token });
      expect(answer.status).toBe(200);
      return answer.body as { unread: number };
    };
    expect(await count(ana.token)).toEqual({ unread: 0 });
    await notify(ana.id, { text: 'one' });
    await notify(ana.id, { text: 'two' });
    await notify(bob.id, { text: 'for Bob' });
    expect(await count(ana.token)).toEqual({ unread: 2 });
    expect(await count(bob.token)).toEqual({ unread: 1 });
    const [newest] = (await list(ana.token)).data;
    expect((await t.request('POST', `/api/v1/notifications/${newest.id}/read`, { token: ana.token })).status).toBe(200);
    expect(await count(ana.token)).toEqual({ unread: 1 });
    expect((await t.request('POST', '/api/v1/notifications/read', { token: ana.token })).status).toBe(204);
    expect(await count(ana.token)).toEqual({ unread: 0 });
    expect((await t.request('GET', '/api/v1/notifications/unread-count')).status).toBe(401);
  });
});

describe('notifications list query plan', () => {
  let t: TestApp;
  let userIds: string[];
  beforeAll(async () => {
    t = await startTestApp();
    userIds = [];
    for (let i = 0; i < 5; i++) userIds.push(uuidOf((await t.createUser()).id));
    // 5,000 notifications spread over 5 users, one in ten unread.
    await t.app.get(DataSource).query(
      `INSERT INTO notifications (id, user_id, type, conversation_id, text, created_at, read_at)
       SELECT gen_random_uuid(), ($1::uuid[])[1 + g % 5], 'message.received', NULL, 'text ' || g,
              now() - g * interval '1 second', CASE WHEN g % 10 = 0 THEN NULL ELSE now() END
       FROM generate_series(1, 5000) AS g`,
      [userIds],
    );
    await t.app.get(DataSource).query('ANALYZE notifications');
  });
  afterAll(() => t.close());

  /** The plan of exactly the SQL the service runs for this query, with sequential scans priced out. */
  const planOf = (fields: Partial<ListNotificationsQuery>) =>
    t.app.get(DataSource).transaction(async (manager) => {
      const page = Object.assign(new ListNotificationsQuery(), fields);
      const { text, values } = t.app
        .get(NotificationRepository)
        .listStatement(userIds[0], page.unread === true, page)
        .compile();
      await manager.query('SET LOCAL enable_seqscan = off');
      const rows: Record<string, string>[] = await manager.query(`EXPLAIN ${text}`, values);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });

  const aCursor = encodeCursor([new Date(Date.now() - 1_000_000).toISOString(), '0193a5f2-c3e4-7b1a-9c4e-2d6f8a0b1c2d']);

  /** Every condition is an index condition (no Filter), the keyset included, and the rows come out in order (no Sort). */
  const expectServedBy = (plan: string, index: string, withCursor: boolean) => {
    expect(plan).toMatch(new RegExp(`Index Scan using ${index} on notifications`));
    const indexCond = /Index Cond: (.*)/.exec(plan)?.[1] ?? '';
    expect(indexCond).toMatch(/user_id = /);
    if (withCursor) expect(indexCond).toMatch(/ROW\(created_at, id\) < ROW\(/);
    expect(plan).not.toMatch(/Filter|Sort|Seq Scan/);
  };

  it.each([
    ['the first page', {}],
    ['a later page', { cursor: aCursor }],
  ])('serves %s of the list from notifications_user_created_idx alone, in order', async (_, fields) => {
    expectServedBy(await planOf(fields), 'notifications_user_created_idx', 'cursor' in fields);
  });

  it.each([
    ['the first page', {}],
    ['a later page', { cursor: aCursor }],
  ])('serves %s of unread=true from the partial notifications_user_unread_idx alone, in order', async (_, fields) => {
    expectServedBy(await planOf({ ...fields, unread: true }), 'notifications_user_unread_idx', 'cursor' in fields);
  });

  it('counts the unread ones from the partial notifications_user_unread_idx alone', async () => {
    const plan = await t.app.get(DataSource).transaction(async (manager) => {
      const { text, values } = t.app.get(NotificationRepository).unreadCountStatement(userIds[0]).compile();
      await manager.query('SET LOCAL enable_seqscan = off');
      const rows: Record<string, string>[] = await manager.query(`EXPLAIN ${text}`, values);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    // An index scan, index-only scan or bitmap scan of the partial index: never the table's rows of other users or read ones.
    expect(plan).toMatch(/(Index Only Scan using|Index Scan using|Bitmap Index Scan on) notifications_user_unread_idx/);
    expect(plan).not.toMatch(/Filter|Seq Scan/);
  });

  it("the explained query fetches limit + 1 of the user's unread rows", async () => {
    const statement = t.app
      .get(NotificationRepository)
      .listStatement(userIds[0], true, Object.assign(new ListNotificationsQuery(), { unread: true }));
    const rows = await query<{ user_id: string; read_at: Date | null }>(t.app.get(Database).db, statement);
    expect(rows).toHaveLength(26);
    expect(rows.every((row) => row.user_id === userIds[0] && row.read_at === null)).toBe(true);
  });
});

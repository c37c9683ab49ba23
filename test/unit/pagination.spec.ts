import { randomUUID } from 'node:crypto';
import { BadRequestException } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '../../src/common/pagination';
import { ConversationRepository } from '../../src/conversations/conversation.repository';
import { Keyset, mayKeepPlan } from '../../src/database/keyset';

describe('cursors', () => {
  const key = ['2026-11-22T16:41:46.123Z', '01a2047c-8e20-78c9-9d14-947d2651598e'];

  it('decode to the key they were made from', () => {
    expect(decodeCursor(encodeCursor(key), ['timestamp', 'uuid'])).toEqual(key);
  });

  it('decode the first and last days of the timestamps a key can hold', () => {
    for (const time of ['0001-01-01T00:00:00.000Z', '2024-02-29T00:00:00.000Z', '9999-12-31T23:59:59.999Z'])
      expect(decodeCursor(encodeCursor([time, key[1]]), ['timestamp', 'uuid'])).toEqual([time, key[1]]);
  });

  it.each([
    ['not base64 JSON', 'nope'],
    ['the wrong number of values', encodeCursor([key[0]])],
    ['a value of the wrong kind', encodeCursor([key[0], 'not-a-uuid'])],
    ['a timestamp without milliseconds', encodeCursor(['2026-11-22T16:41:46Z', key[1]])],
    ['a day the calendar has not', encodeCursor(['2024-02-30T00:00:00.000Z', key[1]])],
    ['the year 0000, before any timestamp', encodeCursor(['0000-01-01T00:00:00.000Z', key[1]])],
  ])('refuses %s with a 400', (_, cursor) => {
    expect(() => decodeCursor(cursor, ['timestamp', 'uuid'])).toThrow(BadRequestException);
  });
});

describe('Keyset', () => {
  const at = (n: number) => new Date(Date.UTC(2026, 10, 22, 16, 0, n));
  const rows = [1, 2, 3].map((n) => ({ created_at: at(n), id: `0000000${n}-0000-7000-8000-000000000000` }));
  const newestFirst = new Keyset<(typeof rows)[number]>({ time: 't.created_at', id: 't.id' }, 'DESC', (row) => [row.created_at, row.id]);
  const oldestFirst = new Keyset<(typeof rows)[number]>({ time: 't.created_at', id: 't.id' }, 'ASC', (row) => [row.created_at, row.id]);

  it('drops the look-ahead row and points the cursor after the last row returned', () => {
    const page = newestFirst.page(rows, { limit: 2 });
    expect(page.data).toEqual(rows.slice(0, 2));
    expect(decodeCursor(page.next_cursor!, ['timestamp', 'uuid'])).toEqual([at(2).toISOString(), rows[1].id]);
  });

  it('answers next_cursor null on the last page', () => {
    expect(newestFirst.page(rows, { limit: 3 })).toEqual({ data: rows, next_cursor: null });
  });

  it('continues after the cursor below it when newest first, as parameters', () => {
    const cursor = encodeCursor([at(2).toISOString(), rows[1].id]);
    expect(newestFirst.after(cursor)!.compile()).toEqual({
      text: '(t.created_at, t.id) < ($1, $2)',
      values: [at(2).toISOString(), rows[1].id],
    });
  });

  it('continues after the cursor above it when oldest first', () => {
    const cursor = encodeCursor([at(2).toISOString(), rows[1].id]);
    expect(oldestFirst.after(cursor)!.compile().text).toBe('(t.created_at, t.id) > ($1, $2)');
  });

  it('has no condition on the first page', () => {
    expect(newestFirst.after(undefined)).toBeNull();
  });

  it('orders by the time then the id and fetches one row more than the page, the number written in', () => {
    expect(newestFirst.orderAndLimit({ limit: 25 }).compile()).toEqual({
      text: 'ORDER BY t.created_at DESC, t.id DESC LIMIT 26',
      values: [],
    });
  });

  it.each([[0], [2.5], [Number.NaN], [Number.MAX_SAFE_INTEGER]])('refuses to write a limit of %p into the statement', (limit) => {
    expect(() => newestFirst.orderAndLimit({ limit })).toThrow(/limit must be a positive integer/);
  });

  it('refuses a cursor of another shape with a 400', () => {
    expect(() => newestFirst.after(encodeCursor(['x']))).toThrow(BadRequestException);
  });
});

describe('the pages whose statements keep their plan', () => {
  const conversations = new ConversationRepository();
  const first = (limit: number) => ({ limit });

  it('are the first pages of the default size and the sizes the console asks', () => {
    expect([25, 50, 100].map((limit) => mayKeepPlan(first(limit)))).toEqual([true, true, true]);
    expect([1, 26, 99].map((limit) => mayKeepPlan(first(limit)))).toEqual([false, false, false]);
    expect(mayKeepPlan({ limit: 25, cursor: encodeCursor(['2026-11-22T16:41:46.123Z', randomUUID()]) })).toBe(false);
  });

  it("include the conversation lists filtered by status and inbox, every reader's of up to 20 inboxes", () => {
    const inboxes = (count: number) => Array.from({ length: count }, () => randomUUID());
    for (const filter of [
      {},
      { status: 'open' as const },
      { inboxId: randomUUID() },
      { status: 'snoozed' as const, visibleInboxes: inboxes(2) },
      { visibleInboxes: inboxes(20) },
    ])
      expect([filter, conversations.keepsListPlan(filter, first(50))]).toEqual([filter, true]);
    expect(conversations.keepsListPlan({ visibleInboxes: inboxes(21) }, first(50))).toBe(false);
  });

  it('leave out the lists whose best plan depends on how many rows the values match: an assignee, unassigned, a team, a search, a label, unread, the queue', () => {
    for (const filter of [
      { assignedTo: randomUUID() },
      { assignedTo: null },
      { team: 'mine' },
      { q: 'alba' },
      { label: 'vip' },
      { unread: true },
      { waiting: true },
    ])
      expect([filter, conversations.keepsListPlan(filter, first(50))]).toEqual([filter, false]);
    expect(conversations.keepsListPlan({ status: 'open' }, first(26))).toBe(false);
  });
});

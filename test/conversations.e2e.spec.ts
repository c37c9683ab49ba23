import { randomUUID } from 'node:crypto';
import { DEFAULT_INBOX_ID } from '../src/common/default-inbox';
import { parsePublicId, toPublicId } from '../src/common/ids';
import { createConversation } from './support/factories';
import { DataSource } from 'typeorm';
import { type ConversationFilter, ConversationRepository } from '../src/conversations/conversation.repository';
import { conversationFilterOf } from '../src/conversations/conversations.service';
import { ListConversationsQuery } from '../src/conversations/conversation.dto';
import { Database } from '../src/database/database';
import type { Db, Sql } from '../src/database/sql';
import { TEST_DATABASE_URL } from './support/environment';
import { asInEvents, customerWrites } from './support/inbox';
import { explainKept, plansOf } from './support/kept-plans';
import { Query, startTestApp, TestApp } from './support/test-app';

describe('conversations', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  it('gets one conversation in the seed’s shape plus its inbox, labels, snoozed_until, its preview, window, created_at and updated_at', async () => {
    const writtenAt = Math.floor(Date.now() / 1000) - 3600;
    const { id, phone } = await customerWrites(t, { name: 'Nora', text: 'Where is my parcel?', timestamp: writtenAt });
    const answer = await t.request('GET', `/api/v1/conversations/${id}`, { token: admin });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id,
      inbox_id: 'inb_00000000000070008000000000000001',
      status: 'open',
      customer: { name: 'Nora', phone, wa_user_id: null, username: null },
      assigned_to: null,
      team_id: null,
      waiting_since: expect.stringMatching(/Z$/),
      labels: [],
      snoozed_until: null,
      last_message_at: expect.stringMatching(/Z$/),
      last_message: {
        id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
        direction: 'inbound',
        type: 'text',
        text: 'Where is my parcel?',
        status: 'received',
        created_at: expect.stringMatching(/Z$/),
      },
      window_expires_at: new Date((writtenAt + 24 * 3600) * 1000).toISOString(),
      csat: null,
      unread_count: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("previews each listed conversation's newest message, an agent's reply included", async () => {
    const { id } = await customerWrites(t, { text: 'first question' });
    const quiet = await createConversation(t);
    const reply = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
      token: admin,
      body: { type: 'text', text: 'our answer' },
    });
    expect(reply.status).toBe(201);
    const list = (await t.request('GET', '/api/v1/conversations?limit=100', { token: admin })).body.data as {
      id: string;
      last_message: { id: string; direction: string; text: string; status: string } | null;
      window_expires_at: string | null;
    }[];
    expect(list.find((c) => c.id === id)?.last_message).toEqual(
      expect.objectContaining({ id: reply.body.id, direction: 'outbound', text: 'our answer', status: 'queued' }),
    );
    const empty = list.find((c) => c.id === toPublicId('conv', quiet.id));
    expect(empty).toEqual(expect.objectContaining({ last_message: null, window_expires_at: null }));
  });

  it.each([
    ['an unknown id', 'conv_0000000000007000800000000000000a'],
    ['an id with another prefix', 'ct_0000000000007000800000000000000a'],
  ])('answers 404 for %s', async (_, id) => {
    const answer = await t.request('GET', `/api/v1/conversations/${id}`, { token: admin });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Conversation not found' });
  });

  it('needs a token', async () => {
    expect((await t.request('GET', '/api/v1/conversations')).status).toBe(401);
  });

  describe('PATCH', () => {
    it('closes a conversation, recording conversation.closed', async () => {
      const { id } = await customerWrites(t);
      const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'closed' } });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ id, status: 'closed' });
      expect((await t.events('conversation.closed')).filter((e) => e.data.conversation.id === id)).toEqual([
        expect.objectContaining({ data: { conversation: asInEvents(answer.body) } }),
      ]);
    });

    it('reopens a closed conversation, recording conversation.reopened', async () => {
      const { id } = await customerWrites(t);
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'closed' } });
      const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'open' } });
      expect(answer.body.status).toBe('open');
      expect((await t.events('conversation.reopened')).filter((e) => e.data.conversation.id === id)).toHaveLength(1);
    });

    it('assigns and closes in one request', async () => {
      const { id } = await customerWrites(t);
      const agent = await t.createUser();
      const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, {
        token: admin,
        body: { status: 'closed', assigned_to: agent.id },
      });
      expect(answer.body).toMatchObject({ status: 'closed', assigned_to: agent.id });
    });

    it('records conversation.assigned with the assignee, the previous one and who assigned', async () => {
      const { id } = await customerWrites(t);
      const [first, second] = [await t.createUser(), await t.createUser()];
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: first.token, body: { assigned_to: first.id } });
      const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: first.token, body: { assigned_to: second.id } });
      const events = (await t.events('conversation.assigned')).filter((e) => e.data.conversation.id === id);
      expect(events.map((e) => e.data)).toEqual([
        {
          conversation: expect.objectContaining({ assigned_to: first.id }),
          assigned_to: first.id,
          previous_assigned_to: null,
          assigned_by: first.id,
        },
        { conversation: asInEvents(answer.body), assigned_to: second.id, previous_assigned_to: first.id, assigned_by: first.id },
      ]);
    });

    it('notifies the assignee when someone else assigns them, and not when they take it themselves', async () => {
      const { id } = await customerWrites(t, { name: 'Otto' });
      const [taker, colleague] = [await t.createUser(), await t.createUser({ name: 'Colleague' })];
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: taker.token, body: { assigned_to: taker.id } });
      expect((await t.request('GET', '/api/v1/notifications', { token: taker.token })).body.data).toEqual([]);
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: taker.token, body: { assigned_to: colleague.id } });
      const notified = await t.request('GET', '/api/v1/notifications', { token: colleague.token });
      expect(notified.body.data).toEqual([
        expect.objectContaining({
          type: 'conversation.assigned',
          conversation_id: id,
          text: 'Test Agent assigned you the conversation with Otto',
        }),
      ]);
    });

    it('unassigns with assigned_to null', async () => {
      const { id } = await customerWrites(t);
      const agent = await t.createUser();
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { assigned_to: agent.id } });
      const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { assigned_to: null } });
      expect(answer.status).toBe(200);
      expect(answer.body.assigned_to).toBeNull();
    });

    it('records nothing when nothing changes', async () => {
      const { id } = await customerWrites(t);
      const before = await t.events();
      expect(before.filter((e) => e.data.conversation?.id === id).map((e) => e.type)).toEqual(['conversation.created', 'message.received']);
      expect((await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'open' } })).status).toBe(200);
      expect((await t.events()).length).toBe(before.length);
    });

    it.each([
      ['an unknown user', { assigned_to: 'user_0000000000007000800000000000000a' }],
      ['something that is not a user id', { assigned_to: 'ct_0000000000007000800000000000000a' }],
    ])('refuses assigning %s with 422', async (_, body) => {
      const { id } = await customerWrites(t);
      const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body });
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ error: 'assigned_to does not name a user' });
    });

    it.each([
      ['an empty body', {}, 'Body must contain status, assigned_to, team_id or labels'],
      ['an unknown status', { status: 'pending' }, /^status /],
      ['a mistyped assigned_to', { assigned_to: 42 }, /^assigned_to /],
      ['an unknown field', { priority: 'high' }, 'priority is not a known field'],
    ])('refuses %s with 400', async (_, body, message) => {
      const { id } = await customerWrites(t);
      const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    });

    it('answers 404 for an unknown conversation', async () => {
      expect(
        (
          await t.request('PATCH', '/api/v1/conversations/conv_0000000000007000800000000000000a', {
            token: admin,
            body: { status: 'closed' },
          })
        ).status,
      ).toBe(404);
    });
  });

  describe('the thread', () => {
    it('lists messages newest first, page by page', async () => {
      const { id, phone } = await customerWrites(t, { text: 'm0' });
      for (let i = 1; i < 5; i++) await customerWrites(t, { phone: phone.slice(1), text: `m${i}` });
      const texts: (string | null)[] = [];
      let cursor: string | null = null;
      do {
        const query: Query = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await t.request('GET', `/api/v1/conversations/${id}/messages${query}`, { token: admin });
        texts.push(...page.body.data.map((m) => m.text));
        cursor = page.body.next_cursor as string | null;
      } while (cursor);
      expect(texts).toEqual(['m4', 'm3', 'm2', 'm1', 'm0']);
    });

    it('answers 404 for the thread of an unknown conversation', async () => {
      expect(
        (await t.request('GET', '/api/v1/conversations/conv_0000000000007000800000000000000a/messages', { token: admin })).status,
      ).toBe(404);
    });
  });
});

describe('conversation list', () => {
  let t: TestApp;
  let admin: string;
  let agent: { id: string; token: string };
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
    agent = await t.createUser();
    for (const name of ['Alice Moreau', 'Bruno Costa', 'Chen Wei', 'Dana Alba']) ids[name] = (await customerWrites(t, { name })).id;
    await t.request('PATCH', `/api/v1/conversations/${ids['Bruno Costa']}`, { token: admin, body: { status: 'closed' } });
    await t.request('PATCH', `/api/v1/conversations/${ids['Chen Wei']}`, { token: admin, body: { assigned_to: agent.id } });
  });
  afterAll(() => t.close());

  /** The names of this fixture's conversations in the list, in its order: the query-plan test below adds thousands of its own. */
  const names = async (query: Query = '', token = admin) =>
    ((await t.request('GET', `/api/v1/conversations${query}`, { token })).body.data as { id: string; customer: { name: string } }[])
      .filter((c) => Object.values(ids).includes(c.id))
      .map((c) => c.customer.name);

  it('orders by the last message, newest first', async () => {
    expect(await names()).toEqual(['Dana Alba', 'Chen Wei', 'Bruno Costa', 'Alice Moreau']);
    await customerWrites(t, {
      phone: (await t.request('GET', `/api/v1/conversations/${ids['Alice Moreau']}`, { token: admin })).body.customer.phone!.slice(1),
    });
    expect((await names())[0]).toBe('Alice Moreau');
  });

  it('filters by status', async () => {
    expect(await names('?status=closed')).toEqual(['Bruno Costa']);
    expect(await names('?status=open')).not.toContain('Bruno Costa');
    expect((await names('?status=open')).sort()).toEqual(['Alice Moreau', 'Chen Wei', 'Dana Alba']);
  });

  it('filters by assignee: a user id, me, and none', async () => {
    expect(await names(`?assigned_to=${agent.id}`)).toEqual(['Chen Wei']);
    expect(await names('?assigned_to=me', agent.token)).toEqual(['Chen Wei']);
    expect(await names('?assigned_to=none')).not.toContain('Chen Wei');
    expect((await names('?assigned_to=none')).sort()).toEqual(['Alice Moreau', 'Bruno Costa', 'Dana Alba']);
  });

  it('searches the customer name and phone, case-insensitively', async () => {
    expect(await names('?q=alba')).toEqual(['Dana Alba']);
    const phone = (await t.request('GET', `/api/v1/conversations/${ids['Chen Wei']}`, { token: admin })).body.customer.phone as string;
    expect(await names(`?q=${encodeURIComponent(phone.slice(-6))}`)).toEqual(['Chen Wei']);
    expect((await t.request('GET', '/api/v1/conversations?q=%25', { token: admin })).body.data).toEqual([]);
  });

  it('walks every conversation once with limit and cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; next_cursor: string | null } } = await t.request(
        'GET',
        `/api/v1/conversations?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        { token: admin },
      );
      seen.push(...page.body.data.map((c) => c.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    const all = (await t.sql<{ id: string }>('SELECT id FROM conversations')).map((row) => `conv_${row.id.replace(/-/g, '')}`);
    expect(all).toEqual(expect.arrayContaining(Object.values(ids)));
    expect(seen.sort()).toEqual(all.sort());
  });

  it.each([['?status=pending'], ['?assigned_to=someone'], ['?limit=500'], ['?cursor=abc']])('refuses %s with 400', async (query) => {
    expect((await t.request('GET', `/api/v1/conversations${query}`, { token: admin })).status).toBe(400);
  });

  it('serves every filter from an index, in keyset order', async () => {
    const dataSource = t.app.get(DataSource);
    const [{ id: reader }] = await t.sql<{ id: string }>('SELECT id FROM users ORDER BY created_at LIMIT 1');
    await dataSource.query(`INSERT INTO contacts (id, phone, name, tags, created_at, updated_at)
      SELECT gen_random_uuid(), '+1999' || lpad(i::text, 7, '0'), 'Bulk ' || md5(i::text), '{}', now(), now() FROM generate_series(1, 3000) i`);
    await dataSource.query(`INSERT INTO conversations (id, contact_id, inbox_id, status, assigned_to, last_message_at, created_at, updated_at)
      SELECT gen_random_uuid(), id, (SELECT id FROM inboxes WHERE is_default), CASE WHEN random() < 0.2 THEN 'closed' ELSE 'open' END, NULL, now() - random() * interval '90 days', now(), now() FROM contacts WHERE name LIKE 'Bulk %'`);
    // Customers wrote last in most of them; the reader has read half of those.
    await dataSource.query(
      `UPDATE conversations SET last_received_at = last_message_at, last_received_id = gen_random_uuid() WHERE random() < 0.8`,
    );
    await dataSource.query(
      `INSERT INTO conversation_reads (conversation_id, user_id, last_read_message_id, last_read_at, updated_at)
       SELECT id, $1, last_received_id, last_received_at, now() FROM conversations WHERE last_received_id IS NOT NULL AND random() < 0.5`,
      [reader],
    );
    await dataSource.query(`UPDATE conversations SET status = 'snoozed', snoozed_until = now() + interval '30 days'
      WHERE id IN (SELECT id FROM conversations WHERE status = 'open' ORDER BY random() LIMIT 300)`);
    await dataSource.query(`INSERT INTO labels (id, name, color, created_at, updated_at)
      SELECT gen_random_uuid(), 'bulk-' || i, '#6b7280', now(), now() FROM generate_series(1, 40) i`);
    await dataSource.query(`INSERT INTO conversation_labels (conversation_id, label_id)
      SELECT c.id, l.id FROM conversations c JOIN labels l ON l.name LIKE 'bulk-%' WHERE random() < 0.05`);
    for (const table of ['contacts', 'conversations', 'labels', 'conversation_labels', 'conversation_reads'])
      await dataSource.query(`VACUUM ANALYZE ${table}`);
    const explain = async (statement: Sql) => {
      const { text, values } = statement.compile();
      const rows: { 'QUERY PLAN': string }[] = await dataSource.query(`EXPLAIN ${text}`, values);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    const plan = (query: Partial<ListConversationsQuery>) => {
      const page = { limit: 25, ...query } as ListConversationsQuery;
      return explain(
        t.app
          .get(ConversationRepository)
          .listStatement(conversationFilterOf(page, { id: reader, role: 'admin', inbox_ids: [] }), page, reader),
      );
    };
    expect(await plan({})).toContain('conversations_last_message_idx');
    expect(await plan({ status: 'open' })).toContain('conversations_status_last_message_idx');
    // The snoozed are few: walking their partial index and sorting them is as cheap, and the
    // planner takes either by the rows' width.
    expect(await plan({ status: 'snoozed' })).toMatch(/conversations_status_last_message_idx|conversations_snoozed_until_idx/);
    expect(await plan({ assigned_to: 'me' })).toContain('conversations_assignee_last_message_idx');
    expect(await plan({ q: '7f3a9c' })).toContain('contacts_search_idx');
    expect(await plan({ label: 'bulk-7' })).toContain('conversation_labels_label_idx');
    expect(await plan({ team_id: `team_${'0'.repeat(31)}1` })).toContain('conversations_team_last_message_idx');
    // The queue, the longest waiting first, on the index of the waiting ones alone (every open unassigned one here).
    expect(await plan({ waiting: true })).toContain('conversations_waiting_idx');
    // Unread for the reader: the list's order, each conversation's marker looked up by its key.
    expect(await plan({ unread: true })).toContain('conversations_last_message_idx');
    expect(await plan({ unread: true })).toContain('conversation_reads_pkey');
    // The labels, the newest message and the unread count are read from the row (kept by triggers):
    // the list reads no label link, and of the messages only the preview's status, by its key.
    const messageScans = (text: string) => text.split('\n').filter((line) => / on messages\b/.test(line));
    expect(await plan({})).not.toMatch(/conversation_labels/);
    for (const text of [await plan({}), await plan({ label: 'bulk-7' })]) {
      expect(messageScans(text)).toHaveLength(1);
      expect(messageScans(text)[0]).toContain('messages_pkey');
    }
    // The page is selected first, in index order: no conversation is read beyond it, and the only
    // sort is of the page's own rows, after the customer and the reader's marker are joined.
    const sortedRows = (text: string) => [...text.matchAll(/Sort {2}\(cost=[\d.]+ rows=(\d+)/g)].map((m) => Number(m[1]));
    // (The snoozed may be walked on their own partial index and sorted, above: not in this loop.)
    for (const query of [{}, { status: 'open' as const }, { unread: true }, { waiting: true }]) {
      const text = await plan(query);
      expect(text).not.toMatch(/Seq Scan on conversations/);
      expect(sortedRows(text).filter((rows) => rows > 26)).toEqual([]);
    }
    // An agent kept to two inboxes: each walked on its own index, merged in order.
    const agentPlan = (query: Partial<ListConversationsQuery>) => {
      const page = { limit: 25, ...query } as ListConversationsQuery;
      const filter = {
        ...conversationFilterOf(page, { id: reader, role: 'admin', inbox_ids: [] }),
        visibleInboxes: [DEFAULT_INBOX_ID, randomUUID()],
      };
      return explain(t.app.get(ConversationRepository).listStatement(filter, page, reader));
    };
    expect(await agentPlan({})).toContain('conversations_inbox_last_message_idx');
    expect(await agentPlan({ status: 'open' })).toContain('conversations_inbox_status_last_message_idx');
    expect(await agentPlan({ status: 'snoozed' })).toContain('conversations_inbox_status_last_message_idx');
    for (const query of [{}, { status: 'open' as const }]) {
      const text = await agentPlan(query);
      expect(text).toContain('Merge Append');
      expect(text).not.toMatch(/Seq Scan on conversations/);
      expect(sortedRows(text).filter((rows) => rows > 26)).toEqual([]);
    }
    // Sparse filters keep one walk of their own index, keeping the agent's inboxes.
    expect(await agentPlan({ assigned_to: 'me' })).toContain('conversations_assignee_last_message_idx');
    // The snoozes' wake-up finds the due ones on the partial index of the snoozed conversations.
    expect(await explain(t.app.get(ConversationRepository).wakeDueStatement(200, new Date()))).toContain('conversations_snoozed_until_idx');
  });

  (TEST_DATABASE_URL ? it : it.skip)(
    'keeps the plans of the lists and counts it may keep on PostgreSQL, each list a walk of its index for a page',
    async () => {
      await t.sql(`INSERT INTO contacts (id, phone, name, tags, created_at, updated_at)
        SELECT gen_random_uuid(), '+1888' || lpad(i::text, 7, '0'), 'Kept ' || md5(i::text), '{}', now(), now() FROM generate_series(1, 3000) i`);
      const reader = parsePublicId('user', agent.id)!;
      await t.sql(
        `INSERT INTO conversations (id, contact_id, inbox_id, status, assigned_to, last_message_at, created_at, updated_at)
        SELECT gen_random_uuid(), id, $1, CASE WHEN random() < 0.3 THEN 'closed' ELSE 'open' END, CASE WHEN random() < 0.1 THEN $2::uuid END,
               now() - random() * interval '90 days', now(), now()
          FROM contacts WHERE name LIKE 'Kept %'`,
        [DEFAULT_INBOX_ID, reader],
      );
      await t.sql('VACUUM ANALYZE conversations');
      const conversations = t.app.get(ConversationRepository);
      // 50 rows: the earlier tests' lists (25 rows) prepared theirs on these connections while the
      // table held a few rows, and PostgreSQL compares a plan made without the values with the
      // average of those made with them since the statement was prepared.
      const page = Object.assign(new ListConversationsQuery(), { limit: 50 });
      const agentInboxes = [DEFAULT_INBOX_ID, randomUUID(), randomUUID()];
      // Whether the last runs of the statement on this connection used the plan made without the
      // values (its sixth and seventh at least, when kept; more if an earlier test ran it on this connection).
      const kept = async (db: Db, statement: Sql) => (await plansOf(db, statement)).map((row) => Number(row.generic_plans) >= 2);
      const filters: [string, ConversationFilter][] = [
        ['all', {}],
        ['open', { status: 'open' }],
        ['one inbox', { inboxId: DEFAULT_INBOX_ID }],
        ["an agent's inboxes", { visibleInboxes: agentInboxes }],
        ["an agent's open", { status: 'open', visibleInboxes: agentInboxes }],
      ];
      const sortedRows = (text: string) => [...text.matchAll(/Sort {2}\(cost=[\d.]+ rows=(\d+)/g)].map((m) => Number(m[1]));
      for (const [name, filter] of filters) {
        expect([name, conversations.keepsListPlan(filter, page)]).toEqual([name, true]);
        const seen = await t.app.get(Database).transaction(async (db) => {
          for (let run = 0; run < 7; run++) expect((await conversations.list(db, filter, page, reader)).data.length).toBeGreaterThan(0);
          const statement = conversations.listStatement(filter, page, reader);
          return { name, kept: await kept(db, statement), plan: await explainKept(db, statement) };
        });
        // Planned without the values after five runs: a walk of the filter's index for the page (the
        // LIMIT is written in), each inbox's merged in order for an agent, nothing read whole and sorted.
        expect(seen).toMatchObject({ name, kept: [true] });
        expect(seen.plan).toMatch(/Limit .*rows=51 /);
        expect(seen.plan).not.toMatch(/Seq Scan on conversations/);
        expect([name, sortedRows(seen.plan).filter((rows) => rows > 51)]).toEqual([name, []]);
        if (filter.visibleInboxes) expect(seen.plan).toContain('Merge Append');
      }
      // The counts read the ledger once whatever the user and inboxes: kept for an admin and an agent.
      for (const scope of [{}, { visibleInboxes: agentInboxes }]) {
        const countsKept = await t.app.get(Database).transaction(async (db) => {
          for (let run = 0; run < 7; run++) await conversations.counts(db, reader, scope);
          return kept(db, conversations.countsStatement(reader, scope));
        });
        expect(countsKept).toEqual([true]);
      }
    },
  );
});

describe('opening a conversation with a contact (POST /api/v1/conversations)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = (await t.createUser()).token;
  });
  afterAll(() => t.close());

  const newContact = async (phone: string) =>
    (await t.request('POST', '/api/v1/contacts', { token, body: { phone, name: 'Written First' } })).body.id;
  const start = (contactId: string) => t.request('POST', '/api/v1/conversations', { token, body: { contact_id: contactId } });

  it('opens one for a contact who never wrote (201, conversation.created), answers it again with 200, and takes only templates until they write', async () => {
    const contactId = await newContact('+14155550987');
    const opened = await start(contactId);
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({
      status: 'open',
      customer: { name: 'Written First', phone: '+14155550987', wa_user_id: null, username: null },
      window_expires_at: null,
    });
    const again = await start(contactId);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(opened.body.id);
    expect((await t.events('conversation.created')).filter((event) => event.data.conversation.id === opened.body.id)).toHaveLength(1);
    const text = await t.request('POST', `/api/v1/conversations/${opened.body.id}/messages`, {
      token,
      body: { type: 'text', text: 'Hello' },
    });
    expect(text.status).toBe(422);
  });

  it('answers the conversation a customer who wrote already has, with 200', async () => {
    const { id, phone } = await customerWrites(t);
    const contact = (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token })).body.data[0];
    const answer = await start(contact.id);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(id);
  });

  it.each([
    ['an unknown contact', `ct_${'0'.repeat(32)}`],
    ['an id that is no contact id', 'user_123'],
  ])('refuses %s with 422', async (_, contactId) => {
    const answer = await start(contactId);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('contact_id does not name a contact');
  });

  it.each([
    ['no contact_id', {}, 400, 'contact_id is required'],
    ['a null contact_id', { contact_id: null }, 400, 'contact_id is required'],
    ['a number', { contact_id: 7 }, 400, 'contact_id must be text'],
    ['an empty contact_id', { contact_id: '' }, 422, 'contact_id does not name a contact'],
    ['an unknown field', { contact_id: `ct_${'0'.repeat(32)}`, inbox: 'x' }, 400, 'inbox is not a known field'],
  ])('refuses %s with %i and a sentence naming the field', async (_, body, status, error) => {
    const answer = await t.request('POST', '/api/v1/conversations', { token, body });
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ error });
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { DEFAULT_INBOX_ID } from '../src/common/default-inbox';
import { parsePublicId } from '../src/common/ids';
import { FOLDED_WORDS_KEPT, type MessageInboxes, MessageRepository, type SearchWay } from '../src/conversations/message.repository';
import { Database } from '../src/database/database';
import { TEST_DATABASE_URL } from './support/environment';
import { SearchMessagesQuery } from '../src/conversations/message.dto';
import { searchWords } from '../src/common/search';
import { customerWrites } from './support/inbox';
import { explainKept, plansOf } from './support/kept-plans';
import { Query, startTestApp, TestApp } from './support/test-app';

/** A word no other test writes, so each test sees only its own messages. */
const marker = () => `zq${randomBytes(4).toString('hex')}`;

describe('message search', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = await t.adminToken();
  });
  afterAll(() => t.close());

  const search = async (q: string, extra = '') => {
    const answer = await t.request('GET', `/api/v1/messages/search?q=${encodeURIComponent(q)}${extra}`, { token });
    expect(answer.status).toBe(200);
    return answer.body as {
      data: { id: string; conversation_id: string; text: string; from: string | null }[];
      next_cursor: string | null;
    };
  };

  it('finds the messages holding every word, in any order, case- and accent-insensitively, newest first', async () => {
    const tag = marker();
    const first = await customerWrites(t, { text: `Quiero un reembolso del Café ${tag}` });
    const second = await customerWrites(t, { text: `${tag.toUpperCase()} CAFÉ reembolsos, gracias` });
    await customerWrites(t, { text: `${tag} café, nada más` });
    const found = await search(`REEMBOLSO cafe ${tag}`);
    expect(found.data.map((m) => [m.conversation_id, m.text])).toEqual([
      [second.id, `${tag.toUpperCase()} CAFÉ reembolsos, gracias`],
      [first.id, `Quiero un reembolso del Café ${tag}`],
    ]);
    expect(found.data[0].from).toBe(second.phone);
    expect(found.next_cursor).toBeNull();
  });

  it("finds agents' replies as well as customers' messages", async () => {
    const tag = marker();
    const conversation = await customerWrites(t, { text: `question ${tag}` });
    const reply = await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
      token,
      body: { type: 'text', text: `answer ${tag}` },
    });
    expect(reply.status).toBe(201);
    const found = await search(tag);
    expect(found.data.map((m) => [m.text, m.from])).toEqual([
      [`answer ${tag}`, null],
      [`question ${tag}`, conversation.phone],
    ]);
  });

  it('folds the words as the database folds the text, further than accents (ß as ss, æ as ae)', async () => {
    const tag = marker();
    await customerWrites(t, { text: `Große Straße ${tag}` });
    await customerWrites(t, { text: `Encyclopædia ${tag}` });
    await customerWrites(t, { text: `Strand ${tag}` });
    for (const q of ['STRASSE', 'straße', 'Straße'])
      expect((await search(`${q} ${tag}`)).data.map((m) => m.text)).toEqual([`Große Straße ${tag}`]);
    expect((await search(`encyclopaedia ${tag}`)).data.map((m) => m.text)).toEqual([`Encyclopædia ${tag}`]);
    expect((await search(`encyclopædia ${tag}`)).data.map((m) => m.text)).toEqual([`Encyclopædia ${tag}`]);
  });

  it('takes % and _ in a word literally', async () => {
    const tag = marker();
    await customerWrites(t, { text: `${tag} 100% sure` });
    await customerWrites(t, { text: `${tag} 1000 sure` });
    await customerWrites(t, { text: `${tag} a_b` });
    await customerWrites(t, { text: `${tag} axb` });
    expect((await search(`0% ${tag}`)).data.map((m) => m.text)).toEqual([`${tag} 100% sure`]);
    expect((await search(`a_b ${tag}`)).data.map((m) => m.text)).toEqual([`${tag} a_b`]);
  });

  it('takes a backslash the database folding makes (∖ is \\) literally', async () => {
    const tag = marker();
    await customerWrites(t, { text: `${tag} a\\b` });
    await customerWrites(t, { text: `${tag} 100%` });
    expect((await search(`a∖b ${tag}`)).data.map((m) => m.text)).toEqual([`${tag} a\\b`]);
    expect((await search(`∖ ${tag}`)).data.map((m) => m.text)).toEqual([`${tag} a\\b`]);
  });

  it('folds words it keeps and words it has not seen together, however many it has folded since', async () => {
    const tag = marker();
    // A word of this test alone (ß, which the database folds to ss), so nothing else kept it before.
    const kept = `${tag}ß`;
    await customerWrites(t, { text: `${kept} café` });
    const messages = t.app.get(MessageRepository);
    const db = t.app.get(Database).db;
    expect(await messages.foldWords(db, [kept])).toEqual([`${tag}ss`]);
    // As many other words folded since as are kept, less one: the kept word is now the oldest, the next to go.
    for (let n = 0; n < FOLDED_WORDS_KEPT - 1; n += 10)
      await messages.foldWords(
        db,
        Array.from({ length: Math.min(10, FOLDED_WORDS_KEPT - 1 - n) }, (_, i) => `${tag}x${n + i}`),
      );
    const fresh = Array.from({ length: 9 }, (_, i) => `${tag}new${i}`);
    expect(await messages.foldWords(db, [kept, ...fresh])).toEqual([`${tag}ss`, ...fresh]);
    expect((await search(`${kept} café`)).data.map((m) => m.text)).toEqual([`${kept} café`]);
  });

  it('pages through the matches with next_cursor, each once', async () => {
    const tag = marker();
    const conversation = await customerWrites(t, { text: `${tag} 0` });
    for (let n = 1; n < 5; n++) {
      await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, { token, body: { type: 'text', text: `${tag} ${n}` } });
    }
    const first = await search(tag, '&limit=3');
    expect(first.data.map((m) => m.text)).toEqual([`${tag} 4`, `${tag} 3`, `${tag} 2`]);
    const second = await search(tag, `&limit=3&cursor=${first.next_cursor}`);
    expect(second.data.map((m) => m.text)).toEqual([`${tag} 1`, `${tag} 0`]);
    expect(second.next_cursor).toBeNull();
  });

  it.each([
    ['no q', ''],
    ['a blank q', '?q=%20%20'],
    ['a q over 200 characters', `?q=${'a'.repeat(201)}`],
    ['a q of 11 words', `?q=${encodeURIComponent('a b c d e f g h i j k')}`],
    ['a q of accents alone, which no word is left of', `?q=${encodeURIComponent('\u0301 \u0300')}`],
  ])('refuses %s with 400 naming q', async (_, query) => {
    const answer = await t.request('GET', `/api/v1/messages/search${query as Query}`, { token });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/\bq\b/);
  });

  it('accepts 10 words', async () => {
    const tag = marker();
    await customerWrites(t, { text: `${tag} a b c d e f g h i` });
    expect((await search(`${tag} a b c d e f g h i`)).data).toHaveLength(1);
  });

  it('serves a word from messages_text_search_idx', async () => {
    const conversation = await customerWrites(t, { text: 'bulk' });
    await t.sql(
      `INSERT INTO messages (id, conversation_id, direction, type, text, status, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'inbound', 'text', 'Bulk ' || md5(i::text), 'received', now() - i * interval '1 second', now()
       FROM generate_series(1, 3000) i`,
      [parsePublicId('conv', conversation.id)],
    );
    await t.sql('VACUUM ANALYZE messages');
    const db = t.app.get(Database).db;
    const messages = t.app.get(MessageRepository);
    const planOf = async (q: string, inboxes: MessageInboxes = {}) => {
      const page = Object.assign(new SearchMessagesQuery(), { q, limit: 25 });
      const { statement, keepPlan } = await messages.searchPlan(db, await messages.foldWords(db, searchWords(q)), page, inboxes);
      const { text, values } = statement.compile();
      const explained = (await t.sql<Record<string, string>>(`EXPLAIN ${text}`, values)).map((row) => Object.values(row)[0]).join('\n');
      return { keepPlan, explained };
    };
    const rare = await planOf('c4ca42');
    expect(rare.explained).toContain('messages_text_search_idx');
    expect(rare.keepPlan).toBe(false);
    expect((await search('C4CA42')).data.map((m) => m.text)).toEqual([`Bulk ${'c4ca4238a0b923820dcc509a6f75849b'}`]);

    // A reader kept to some inboxes: a common word walks each of them newest first, merged in
    // order, with the plan kept. The bulk is spread over ten inboxes first, as an install of several numbers has it.
    const [{ contact_id: contactId }] = await t.sql<{ contact_id: string }>('SELECT contact_id FROM conversations WHERE id = $1', [
      parsePublicId('conv', conversation.id),
    ]);
    const spread = await t.sql<{ id: string }>(
      `WITH made AS (INSERT INTO inboxes (id, name, phone_number_id, created_at, updated_at)
                     SELECT gen_random_uuid(), 'Bulk ' || n, '77' || n || $2, now(), now() FROM generate_series(1, 9) n RETURNING id)
       INSERT INTO conversations (id, contact_id, inbox_id, status, last_message_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1, made.id, 'open', now(), now(), now() FROM made RETURNING id`,
      [contactId, String(Date.now())],
    );
    await t.sql(
      `UPDATE messages m SET conversation_id = ($1::uuid[])[1 + abs(hashtext(m.id::text)) % 9]
        WHERE m.conversation_id = $2 AND m.text LIKE 'Bulk %' AND abs(hashtext(m.id::text)) % 10 <> 0`,
      [spread.map((row) => row.id), parsePublicId('conv', conversation.id)],
    );
    await t.sql('VACUUM ANALYZE messages');
    const common = await planOf('bulk', { visibleInboxes: [DEFAULT_INBOX_ID, randomUUID()] });
    expect(common.explained).toContain('Merge Append');
    expect(common.explained).toContain('messages_inbox_created_idx');
    expect(common.explained).not.toMatch(/Seq Scan on messages|messages_text_search_idx/);
    expect(common.keepPlan).toBe(true);
  });

  (TEST_DATABASE_URL ? it : it.skip)(
    'keeps the plan of a search it walks on PostgreSQL: planned without the words after five runs',
    async () => {
      const tag = marker();
      const conversation = await customerWrites(t, { text: `${tag} first` });
      // A word in enough messages that the planner walks for it, and that a plan made without knowing
      // how many rows the page needs would cost more than one made with it (it would not be kept).
      await t.sql(
        `INSERT INTO messages (id, conversation_id, direction, type, text, status, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'inbound', 'text', $2 || ' ' || md5(i::text), 'received', now() - i * interval '1 second', now()
       FROM generate_series(1, 3000) i`,
        [parsePublicId('conv', conversation.id), tag],
      );
      await t.sql('VACUUM ANALYZE messages');
      const messages = t.app.get(MessageRepository);
      const page = Object.assign(new SearchMessagesQuery(), { q: tag, limit: 25 });
      const inboxes = { visibleInboxes: [DEFAULT_INBOX_ID, randomUUID()] };
      const counts = await t.app.get(Database).transaction(async (db) => {
        const { statement, keepPlan } = await messages.searchPlan(db, [tag], page, inboxes);
        expect(keepPlan).toBe(true);
        for (let run = 0; run < 7; run++) expect((await messages.search(db, [tag], page, inboxes)).data).toHaveLength(25);
        return { kept: await plansOf(db, statement), plan: await explainKept(db, statement) };
      });
      expect(counts.kept).toEqual([{ generic_plans: '2', custom_plans: '5' }]);
      // The kept plan walks the inboxes newest first for a page (it knows the page's 26 rows: the
      // LIMIT is written in), not every match read and sorted.
      expect(counts.plan).toMatch(/Limit .*rows=26 /);
      expect(counts.plan).toContain('Merge Append');
      expect(counts.plan).toContain('messages_inbox_created_idx');
      expect(counts.plan).not.toMatch(/Seq Scan on messages|Sort Key: messages\.created_at DESC, messages\.id DESC\n.*Seq/);
    },
  );

  it('finds the same messages whether it walks or reads the trigram index', async () => {
    const tag = marker();
    await customerWrites(t, { text: `${tag} Straße 100%` });
    await customerWrites(t, { text: `${tag} a_b` });
    await customerWrites(t, { text: `${tag} other` });
    const db = t.app.get(Database).db;
    const messages = t.app.get(MessageRepository);
    await customerWrites(t, { text: `${tag} a\\b` });
    const textsOf = async (q: string, way: SearchWay, inboxes: MessageInboxes = {}) => {
      const page = Object.assign(new SearchMessagesQuery(), { q, limit: 25 });
      const { text, values } = messages.searchStatement(await messages.foldWords(db, searchWords(q)), page, inboxes, way).compile();
      return (await t.sql<{ text: string }>(text, values)).map((row) => row.text);
    };
    const agent = { visibleInboxes: [DEFAULT_INBOX_ID, randomUUID()] };
    for (const q of [`${tag} strasse`, `${tag} 100%`, `${tag} a_b`, `${tag}`, `${tag} %`, `${tag} _`, `${tag} ∖`]) {
      expect(await textsOf(q, 'walk')).toEqual(await textsOf(q, 'index'));
      expect(await textsOf(q, 'walk', agent)).toEqual(await textsOf(q, 'index', agent));
    }
    expect(await textsOf(`${tag} ∖`, 'walk', agent)).toEqual([`${tag} a\\b`]);
    expect(await textsOf(`${tag} %`, 'walk')).toEqual([`${tag} Straße 100%`]);
    expect(await textsOf(tag, 'walk')).toHaveLength(4);
  });

  it('keeps each message in its conversation’s inbox, set by the database whoever writes the row', async () => {
    const { id } = await customerWrites(t, { text: marker() });
    const conversationId = parsePublicId('conv', id);
    const [other] = await t.sql<{ id: string }>(
      `INSERT INTO inboxes (id, name, phone_number_id, created_at, updated_at) VALUES (gen_random_uuid(), 'Other', $1, now(), now()) RETURNING id`,
      [String(Date.now())],
    );
    await t.sql(
      `INSERT INTO messages (id, conversation_id, direction, type, text, status, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'inbound', 'text', 'written by hand', 'received', now(), now())`,
      [conversationId],
    );
    const inboxesOf = async () =>
      (await t.sql<{ inbox_id: string }>('SELECT DISTINCT inbox_id FROM messages WHERE conversation_id = $1', [conversationId])).map(
        (row) => row.inbox_id,
      );
    expect(await inboxesOf()).toEqual([DEFAULT_INBOX_ID]);
    await t.sql('UPDATE conversations SET inbox_id = $1 WHERE id = $2', [other.id, conversationId]);
    expect(await inboxesOf()).toEqual([other.id]);
  });
});

import { DataSource } from 'typeorm';
import { ListCannedResponsesQuery } from '../src/canned-responses/canned-response.dto';
import { CannedResponseRepository } from '../src/canned-responses/canned-response.repository';
import { startTestApp, TestApp } from './support/test-app';
import { nextMillisecond } from './support/clock';

describe('canned responses', () => {
  let t: TestApp;
  let admin: string;
  let author: { id: string; token: string };
  let colleague: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
    author = await t.createUser({ role: 'agent' });
    colleague = await t.createUser({ role: 'agent' });
  });
  afterAll(() => t.close());

  const create = (body: unknown, token = author.token) => t.request('POST', '/api/v1/canned-responses', { token, body });
  const patch = (id: string, body: unknown, token = author.token) => t.request('PATCH', `/api/v1/canned-responses/${id}`, { token, body });
  const remove = (id: string, token = author.token) => t.request('DELETE', `/api/v1/canned-responses/${id}`, { token });
  const get = (id: string) => t.request('GET', `/api/v1/canned-responses/${id}`, { token: colleague.token });

  it('creates a canned response with 201 for any user, its author recorded, and answers it on read', async () => {
    const created = await create({ shortcut: 'welcome_1', text: '  Hello! How can we help?\nWe answer within the hour.  ' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cr_[0-9a-f]{32}$/),
      shortcut: 'welcome_1',
      text: 'Hello! How can we help?\nWe answer within the hour.',
      interactive: null,
      created_by: author.id,
      created_at: expect.stringMatching(/Z$/),
      updated_at: created.body.created_at,
    });
    expect((await get(created.body.id)).body).toEqual(created.body);
  });

  it('changes the shortcut and the text, each alone or both, and deletes with 204', async () => {
    const created = (await create({ shortcut: 'bye', text: 'Goodbye' })).body;
    const renamed = await patch(created.id, { shortcut: 'farewell' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created, shortcut: 'farewell', updated_at: expect.any(String) });
    const both = await patch(created.id, { shortcut: 'bye-bye', text: 'See you' });
    expect(both.body).toMatchObject({ shortcut: 'bye-bye', text: 'See you' });
    expect((await get(created.id)).body).toEqual(both.body);
    expect((await remove(created.id)).status).toBe(204);
    expect((await get(created.id)).status).toBe(404);
    expect((await remove(created.id)).status).toBe(404);
  });

  it('refuses a shortcut already taken with 409, also written in another case or with accents', async () => {
    expect((await create({ shortcut: 'Envío', text: 'Shipping takes 3 days' })).status).toBe(201);
    for (const shortcut of ['Envío', 'envio', 'ENVIO']) {
      const answer = await create({ shortcut, text: 'Another' }, colleague.token);
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({ error: 'A canned response with this shortcut already exists' });
    }
    const other = (await create({ shortcut: 'envio-2', text: 'Another' })).body;
    const taken = await patch(other.id, { shortcut: 'ENVÍO' });
    expect(taken.status).toBe(409);
    expect((await get(other.id)).body.shortcut).toBe('envio-2');
  });

  it.each([
    ['no shortcut', { text: 'x' }, /^shortcut is required$/],
    ['an empty shortcut', { shortcut: '', text: 'x' }, /^shortcut is required$/],
    ['a shortcut of 33 characters', { shortcut: 'a'.repeat(33), text: 'x' }, /^shortcut must be at most 32 characters$/],
    ['a shortcut with a space', { shortcut: 'two words', text: 'x' }, /^shortcut must hold only letters, digits, - and _$/],
    ['a shortcut with a slash', { shortcut: '/thanks', text: 'x' }, /^shortcut must hold only letters/],
    ['no text', { shortcut: 'ok1' }, /^text is required$/],
    ['a blank text', { shortcut: 'ok2', text: '   ' }, /^text is required$/],
    ['a text over 4096 characters', { shortcut: 'ok3', text: 'x'.repeat(4097) }, /^text must be at most 4096 characters$/],
    ['an unknown field', { shortcut: 'ok4', text: 'x', title: 'T' }, /^title is not a known field$/],
  ])('refuses %s with 400 naming the field', async (_, body, message) => {
    const answer = await create(body);
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error).toMatch(message);
  });

  it('takes the limits: a 32-character shortcut of letters in any script, digits, - and _; a 4096-character text', async () => {
    const answer = await create({ shortcut: `ñ-ü_Я9${'a'.repeat(26)}`, text: 'x'.repeat(4096) });
    expect(answer.status).toBe(201);
  });

  it('refuses an empty PATCH with 400', async () => {
    const created = (await create({ shortcut: 'empty-patch', text: 'x' })).body;
    expect((await patch(created.id, {})).body).toEqual({ error: 'Body must set shortcut, text or interactive' });
  });

  it('lets only the author or an admin change or delete a canned response (403 for a colleague), and an admin one whose author is gone', async () => {
    const created = (await create({ shortcut: 'mine', text: 'Mine' })).body;
    const foreign = await patch(created.id, { text: 'Yours now' }, colleague.token);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ error: 'Only the author of a canned response or an admin may change or delete it' });
    expect((await remove(created.id, colleague.token)).status).toBe(403);
    expect((await get(created.id)).body.text).toBe('Mine');
    expect((await patch(created.id, { text: 'Edited by an admin' }, admin)).status).toBe(200);

    const leaving = await t.createUser({ role: 'agent' });
    const orphan = (await create({ shortcut: 'orphan', text: 'x' }, leaving.token)).body;
    expect((await t.request('DELETE', `/api/v1/users/${leaving.id}`, { token: admin })).status).toBe(204);
    expect((await get(orphan.id)).body.created_by).toBeNull();
    expect((await patch(orphan.id, { text: 'y' }, colleague.token)).status).toBe(403);
    expect((await remove(orphan.id, admin)).status).toBe(204);
  });

  it.each([
    ['an unknown id', 'cr_0000000000007000800000000000000a'],
    ['an id with another prefix', 'ct_0000000000007000800000000000000a'],
  ])('answers 404 for %s', async (_, id) => {
    expect((await get(id)).body).toEqual({ error: 'Canned response not found' });
    expect((await patch(id, { text: 'x' })).status).toBe(404);
    expect((await remove(id)).status).toBe(404);
  });
  describe('interactive canned responses', () => {
    const branches = {
      type: 'list',
      body: { text: 'Which branch is nearest to you?' },
      action: {
        button: 'Choose a branch',
        sections: [
          {
            rows: [
              { id: 'hamburg', title: 'Hamburg' },
              { id: 'munich', title: 'Munich' },
            ],
          },
        ],
      },
    };

    it('holds an interactive message whose body is its text, found by that text', async () => {
      const created = await create({ shortcut: 'branches-1', interactive: branches });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ shortcut: 'branches-1', text: 'Which branch is nearest to you?', interactive: branches });
      expect((await get(created.body.id)).body).toEqual(created.body);
      const found = await t.request('GET', '/api/v1/canned-responses?q=nearest%20branch', { token: colleague.token });
      expect(found.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);
      expect((await create({ shortcut: 'plain-1', text: 'Hello' })).body).toMatchObject({ text: 'Hello', interactive: null });
    });

    it('refuses an interactive body the channel would refuse, naming the field, and text beside interactive', async () => {
      const tooManyButtons = { ...branches, action: { ...branches.action, button: 'Choose one of our many branches' } };
      const refused = await create({ shortcut: 'branches-2', interactive: tooManyButtons });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: 'interactive.action.button must be at most 20 characters, not 31' });
      const both = await create({ shortcut: 'branches-2', text: 'Choose', interactive: branches });
      expect(both.status).toBe(400);
      expect(both.body.error).toMatch(/^text goes without interactive/);
      expect((await create({ shortcut: 'branches-2' })).body).toEqual({ error: 'text is required' });
      const uploadHeader = {
        ...branches,
        type: 'button',
        header: { type: 'image', image: { media_id: 'med_0000000000007000800000000000000a' } },
      };
      uploadHeader.action = { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } as never;
      const upload = await create({ shortcut: 'branches-2', interactive: uploadHeader });
      expect(upload.status).toBe(400);
      expect(upload.body.error).toBe(
        'interactive.header.image.media_id: the media header of a canned response must be a link (an https URL)',
      );
      const linkHeader = { ...uploadHeader, header: { type: 'image', image: { link: 'https://cdn.example.com/branches.png' } } };
      expect((await create({ shortcut: 'branches-2', interactive: linkHeader })).status).toBe(201);
    });

    it.each<[unknown, string]>([
      [null, 'interactive must be an object'],
      ['branches', 'interactive must be an object'],
      [[], 'interactive must be an object'],
      [7, 'interactive must be an object'],
      [{}, 'interactive.type must be one of button, list, cta_url, flow'],
    ])('refuses interactive %j with 400 naming it, on create and on change', async (interactive, error) => {
      expect((await create({ shortcut: 'odd-1', interactive })).body).toEqual({ error });
      const plain = (await create({ shortcut: `odd-${Math.random().toString(36).slice(2, 8)}`, text: 'Plain' })).body;
      // null on a change means "back to text"; any other wrong value is refused there too.
      const changed = await patch(plain.id, { interactive });
      if (interactive === null) expect(changed.body).toMatchObject({ text: 'Plain', interactive: null });
      else expect(changed.body).toEqual({ error });
    });

    it('turns a text response interactive and back, the body staying its text', async () => {
      const created = (await create({ shortcut: 'hours-1', text: 'We are open 9-17' })).body;
      const hours = {
        type: 'button',
        body: { text: 'We are open 9-17. Need more?' },
        action: { buttons: [{ type: 'reply', reply: { id: 'agent', title: 'Talk to us' } }] },
      };
      const made = await patch(created.id, { interactive: hours });
      expect(made.body).toMatchObject({ text: 'We are open 9-17. Need more?', interactive: hours });
      const textOfInteractive = await patch(created.id, { text: 'Other' });
      expect(textOfInteractive.status).toBe(400);
      expect(textOfInteractive.body.error).toMatch(/is interactive: its text is interactive.body.text/);
      const back = await patch(created.id, { interactive: null });
      expect(back.body).toMatchObject({ text: 'We are open 9-17. Need more?', interactive: null });
      expect((await patch(created.id, { text: 'Open 8-18' })).body).toMatchObject({ text: 'Open 8-18', interactive: null });
    });
  });
});

describe('canned responses search', () => {
  let t: TestApp;
  let token: string;
  /** In creation order. */
  const shortcuts = ['gracias', 'Graduation', 'shipping', 'envio', 'refund_policy', 'percent'];
  beforeAll(async () => {
    t = await startTestApp();
    token = (await t.createUser()).token;
    const texts = [
      '¡Gracias por escribirnos!',
      'Congratulations on your graduation',
      'Your order ships within 2 days',
      'El envío tarda 3 días hábiles',
      'Refunds are processed within 14 days of the return',
      'We give 100% of the money back, minus_fees',
    ];
    for (const [i, shortcut] of shortcuts.entries()) {
      const answer = await t.request('POST', '/api/v1/canned-responses', { token, body: { shortcut, text: texts[i] } });
      if (answer.status !== 201) throw new Error(answer.text);
      await nextMillisecond();
    }
  });
  afterAll(() => t.close());

  const search = async (q: string): Promise<string[]> => {
    const answer = await t.request('GET', `/api/v1/canned-responses?q=${encodeURIComponent(q)}`, { token });
    expect(answer.status).toBe(200);
    return answer.body.data.map((row: { shortcut: string }) => row.shortcut);
  };

  it('lists every canned response newest first, and walks them with limit and next_cursor', async () => {
    expect(await search('')).toEqual([...shortcuts].reverse());
    const first = await t.request('GET', '/api/v1/canned-responses?limit=4', { token });
    const second = await t.request('GET', `/api/v1/canned-responses?limit=4&cursor=${first.body.next_cursor}`, { token });
    expect([...first.body.data, ...second.body.data].map((row: { shortcut: string }) => row.shortcut)).toEqual([...shortcuts].reverse());
    expect(second.body.next_cursor).toBeNull();
  });

  it('finds a shortcut by its start, case-insensitively, with or without a leading slash', async () => {
    expect(await search('gra')).toEqual(['Graduation', 'gracias']);
    expect(await search('/GRAC')).toEqual(['gracias']);
    expect(await search('ref')).toEqual(['refund_policy']);
    // Not by its middle: "ping" is inside "shipping" but starts nothing.
    expect(await search('ping')).toEqual([]);
  });

  it('finds a text holding every word, in any order, case- and accent-insensitively', async () => {
    expect(await search('DIAS envio')).toEqual(['envio']);
    expect(await search('días')).toEqual(['envio']);
    expect(await search('tarda HÁBILES')).toEqual(['envio']);
    expect(await search('within days')).toEqual(['refund_policy', 'shipping']);
    expect(await search('within weeks')).toEqual([]);
    expect(await search('ÉSCRIBIRNOS')).toEqual(['gracias']);
  });

  it('takes % and _ in q literally', async () => {
    expect(await search('100%')).toEqual(['percent']);
    expect(await search('minus_')).toEqual(['percent']);
    expect(await search('%')).toEqual(['percent']);
    // refund_policy holds _ inside its shortcut, which matches only by its start.
    expect(await search('_')).toEqual(['percent']);
  });

  it('refuses a q over 100 characters and an unknown parameter with 400', async () => {
    expect((await t.request('GET', `/api/v1/canned-responses?q=${'x'.repeat(101)}`, { token })).status).toBe(400);
    expect((await t.request('GET', '/api/v1/canned-responses?shortcut=x', { token })).body).toEqual({
      error: 'shortcut is not a known field',
    });
  });
});

describe('canned responses list query plan', () => {
  let t: TestApp;
  let repository: CannedResponseRepository;
  let dataSource: DataSource;
  beforeAll(async () => {
    t = await startTestApp();
    repository = t.app.get(CannedResponseRepository);
    dataSource = t.app.get(DataSource);
    await dataSource.query(`
      INSERT INTO canned_responses (id, shortcut, text, folded_shortcut, folded_text, created_by, created_at, updated_at)
      SELECT md5(i::text)::uuid, 's' || md5(i::text), 'answer ' || md5('t' || i), 's' || md5(i::text), 'answer ' || md5('t' || i), NULL,
             now() - i * interval '1 second', now() - i * interval '1 second'
      FROM generate_series(1, 5000) AS i`);
    await dataSource.query('VACUUM ANALYZE canned_responses');
  });
  afterAll(() => t.close());

  async function planOf(query: Partial<ListCannedResponsesQuery>): Promise<string> {
    const { text, values } = repository.listStatement(query, { limit: 25, ...query }).compile();
    return dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const rows: { 'QUERY PLAN': string }[] = await manager.query(`EXPLAIN ${text}`, values);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it('serves the plain list and its later pages from canned_responses_created_at_id_idx', async () => {
    expect(await planOf({})).toContain('canned_responses_created_at_id_idx');
    const cursor = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', '00000000-0000-7000-8000-000000000000'])).toString('base64url');
    expect(await planOf({ cursor })).toContain('canned_responses_created_at_id_idx');
  });

  it('serves q from canned_responses_shortcut_key (the shortcut prefix) and canned_responses_text_search_idx (the words)', async () => {
    const plan = await planOf({ q: 's0a1b2c' });
    expect(plan).toContain('canned_responses_shortcut_key');
    expect(plan).toContain('canned_responses_text_search_idx');
  });
});

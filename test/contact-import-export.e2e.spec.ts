import { parse } from 'csv-parse/sync';
import { Readable } from 'node:stream';
import { startTestApp, TestApp } from './support/test-app';

const CSV = { 'content-type': 'text/csv' };

/** A CSV body's records (csv-parse), the header first. */
const recordsOf = (text: string): string[][] => parse(text, { bom: true }) as string[][];

describe('contact import', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = (await t.createUser({ role: 'agent' })).token;
  });
  afterAll(() => t.close());

  const importCsv = (csv: string | Buffer | Readable, headers: Record<string, string> = CSV) =>
    t.request('POST', '/api/v1/contacts/import', { token, payload: csv as string, headers });
  const contactByPhone = async (phone: string) => {
    const answer = await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token });
    return answer.body.data.find((contact) => contact.phone === phone);
  };
  const eventsFor = (phone: string) =>
    t.sql<{ type: string }>(`SELECT type FROM events WHERE data->'contact'->>'phone' = $1 ORDER BY created_at, id`, [phone]);

  it('creates a contact per line with its fields, tags split on ; and typed attributes, recording contact.created', async () => {
    const answer = await importCsv(
      'phone,name,email,tags,plan,seats,trial,zip\n' +
        '+16315550001,Ana Lopez,ana@example.com,vip; es ;vip,pro,3,true,00123\n' +
        '1 (631) 555-0002,"Bo, ""Jr""",,,,,,\n',
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ created: 2, updated: 0, refused: [] });
    expect(await contactByPhone('+16315550001')).toMatchObject({
      name: 'Ana Lopez',
      email: 'ana@example.com',
      tags: ['vip', 'es'],
      attributes: { plan: 'pro', seats: 3, trial: true, zip: '00123' },
    });
    expect(await contactByPhone('+16315550002')).toMatchObject({ name: 'Bo, "Jr"', email: null, tags: [], attributes: {} });
    expect((await eventsFor('+16315550001')).map((e) => e.type)).toEqual(['contact.created']);
  });

  it('updates the contact with the same phone: the columns the file has are written, an empty cell clears, the others stay', async () => {
    await importCsv('phone,name,email,tags,plan,seats\n+16315550011,Cy,cy@example.com,vip,pro,3\n');
    const answer = await importCsv('phone,email,plan,seats,region\n+16315550011,,basic,,emea\n');
    expect(answer.body).toEqual({ created: 0, updated: 1, refused: [] });
    expect(await contactByPhone('+16315550011')).toMatchObject({
      name: 'Cy',
      email: null,
      tags: ['vip'],
      attributes: { plan: 'basic', region: 'emea' },
    });
    expect((await eventsFor('+16315550011')).map((e) => e.type)).toEqual(['contact.created', 'contact.updated']);
  });

  it('counts a line that matches a contact without changing it as updated, and records no event for it', async () => {
    const csv = 'phone,name,tags\n+16315550021,Di,a;b\n';
    expect((await importCsv(csv)).body).toEqual({ created: 1, updated: 0, refused: [] });
    const before = await contactByPhone('+16315550021');
    expect((await importCsv(csv)).body).toEqual({ created: 0, updated: 1, refused: [] });
    expect(await contactByPhone('+16315550021')).toEqual(before);
    expect((await eventsFor('+16315550021')).map((e) => e.type)).toEqual(['contact.created']);
  });

  it('applies a phone that appears twice in order: the later line wins and both count, one event telling the result', async () => {
    const answer = await importCsv('phone,name,plan\n+16315550031,First,a\n+16315550032,Other,\n16315550031,Second,\n');
    expect(answer.body).toEqual({ created: 2, updated: 1, refused: [] });
    const contact = await contactByPhone('+16315550031');
    expect(contact).toMatchObject({ name: 'Second', attributes: {} });
    const events = await t.sql<{ type: string; data: unknown }>(
      `SELECT type, data FROM events WHERE data->'contact'->>'phone' = '+16315550031' ORDER BY created_at, id`,
    );
    expect(events).toEqual([{ type: 'contact.created', data: { contact } }]);
  });

  it('refuses each bad line with its line number and why, and imports the rest', async () => {
    await importCsv(`phone,${Array.from({ length: 50 }, (_, i) => `k${i}`).join(',')}\n+16315550049,${Array(50).fill('v').join(',')}\n`);
    const lines = [
      'phone,name,email,tags,plan,extra',
      '+16315550041,Good One,,,,',
      'not-a-phone,Bad Phone,,,,',
      ',No Phone,,,,',
      '+16315550042,Bad Mail,maria@,,,',
      `+16315550043,${'n'.repeat(201)},,,,`,
      `+16315550044,,,${Array.from({ length: 51 }, (_, i) => `t${i}`).join(';')},,`,
      `+16315550045,,,${'t'.repeat(51)},,`,
      '+16315550046,Too Few,,',
      '+16315550047,Nul\u0000Name,,,,',
      '+16315550049,,,,,x',
      '+16315550048,Good Two,,,,',
      '+16315550050,"Bad"Quote,,,,',
    ];
    const answer = await importCsv(`${lines.join('\n')}\n`);
    expect(answer.status).toBe(200);
    expect(answer.body.created).toBe(2);
    expect(answer.body.updated).toBe(0);
    expect(answer.body.refused).toEqual([
      { line: 3, error: 'phone "not-a-phone" is not a phone number in international format, e.g. +16315551234' },
      { line: 4, error: 'phone is empty' },
      { line: 5, error: 'email "maria@" must be an e-mail address' },
      { line: 6, error: 'name must be at most 200 characters' },
      { line: 7, error: 'tags must be at most 50, not 51' },
      { line: 8, error: 'tags must each be 1 to 50 characters long' },
      { line: 9, error: 'The line has 4 fields; the header row has 6' },
      { line: 10, error: 'Field 2 holds a NUL character' },
      { line: 11, error: 'The contact would have 51 attributes; a contact has at most 50' },
      { line: 13, error: 'A quoted field is followed by something else than a comma or the end of the line' },
    ]);
    expect(await contactByPhone('+16315550041')).toMatchObject({ name: 'Good One' });
    expect(await contactByPhone('+16315550048')).toMatchObject({ name: 'Good Two' });
    expect(await contactByPhone('+16315550042')).toBeUndefined();
    expect(Object.keys((await contactByPhone('+16315550049'))!.attributes)).toHaveLength(50);
  });

  it('reads a header in any case and order, a byte order mark and CRLF line ends', async () => {
    const answer = await importCsv('\ufeffTags,Phone,NAME\r\nvip,+16315550061,Eve\r\n\r\n,+16315550062,Fay\r\n');
    expect(answer.body).toEqual({ created: 2, updated: 0, refused: [] });
    expect(await contactByPhone('+16315550061')).toMatchObject({ name: 'Eve', tags: ['vip'] });
  });

  it('takes one leading apostrophe off a cell as spreadsheets write text, so a cell can hold a formula-like or number-like text', async () => {
    const answer = await importCsv(`phone,name,code,flag,note\n'+16315550071,'=HYPERLINK(x),'42,'true,''quoted\n`);
    expect(answer.body).toEqual({ created: 1, updated: 0, refused: [] });
    expect(await contactByPhone('+16315550071')).toMatchObject({
      name: '=HYPERLINK(x)',
      attributes: { code: '42', flag: 'true', note: "'quoted" },
    });
  });

  it.each([
    ['no phone column', 'name,email\nAna,\n', /^The header row must have a phone or a wa_user_id column/],
    ['a column named twice', 'phone,name,Name\n+16315550081,a,b\n', /^The header row names the column "Name" twice$/],
    [
      'an attribute column that cannot be a key',
      'phone,first name\n+16315550081,a\n',
      /^The header row's column "first name": attribute key/,
    ],
    ['an unnamed column', 'phone,,plan\n+16315550081,a,b\n', /^Column 2 of the header row has no name$/],
    ['an empty file', '', /^The file is empty/],
  ])('refuses a file with %s with 400, importing nothing', async (_, csv, message) => {
    const answer = await importCsv(csv);
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error).toMatch(message);
    expect(await contactByPhone('+16315550081')).toBeUndefined();
  });

  it('refuses a body that is not text/csv with 415, and CSV sent to another route with 415', async () => {
    const json = await t.request('POST', '/api/v1/contacts/import', { token, body: { phone: '+16315550091' } });
    expect(json.status).toBe(415);
    expect(json.body).toEqual({ error: 'Content-Type must be text/csv' });
    const plain = await importCsv('phone\n+16315550091\n', { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(Object.keys(plain.body)).toEqual(['error']);
    const elsewhere = await t.request('POST', '/api/v1/contacts', { token, payload: 'phone\n+16315550091\n', headers: CSV });
    expect(elsewhere.status).toBe(415);
    expect(elsewhere.body).toEqual({ error: 'Content-Type must be application/json' });
    expect(await contactByPhone('+16315550091')).toBeUndefined();
    // The same body as text/csv is taken.
    expect((await importCsv('phone\n+16315550091\n')).body).toEqual({ created: 1, updated: 0, refused: [] });
  });

  it('refuses a body over 10 MiB with 413: by its Content-Length before reading, or counted as it streams', async () => {
    const header = 'phone,name\n';
    const declared = await importCsv(header + 'x'.repeat(10 * 1024 * 1024));
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ error: 'The CSV body is larger than 10 MiB' });
    // Sent as a stream: no Content-Length, so only counting the bytes as they arrive can stop it (long lines parse fast).
    const chunks = function* () {
      yield header;
      for (let i = 0; i < 11 * 16; i++) yield `${'x'.repeat(64 * 1024 - 1)}\n`;
    };
    const streamed = await importCsv(Readable.from(chunks()));
    expect(streamed.status).toBe(413);
    expect(streamed.body).toEqual({ error: 'The CSV body is larger than 10 MiB' });
    // Just under the limit is taken.
    const under = await importCsv(header + '+16315559998,x\n' + ' '.repeat(10 * 1024 * 1024 - 40) + '\n');
    expect(under.status).toBe(200);
  });

  it('lists the first 1,000 refusals and one entry for the rest', async () => {
    const bad = Array.from({ length: 1500 }, (_, i) => `bad-${i},x`).join('\n');
    const answer = await importCsv(`phone,name\n${bad}\n+16315550095,ok\n`);
    expect(answer.body.created).toBe(1);
    expect(answer.body.refused).toHaveLength(1001);
    expect(answer.body.refused[999].line).toBe(1001);
    expect(answer.body.refused[1000]).toEqual({
      line: 1002,
      error: 'This line was refused too, and 499 more lines after it; only the first 1000 refusals are listed',
    });
  });

  it('imports concurrent files sharing new phones without a failure: each phone created once, then updated', async () => {
    const csv = `phone,name\n${Array.from({ length: 3000 }, (_, i) => `+1631556${String(i).padStart(4, '0')},Racer`).join('\n')}\n`;
    const answers = await Promise.all([importCsv(csv), importCsv(csv)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers[0].body.created + answers[1].body.created).toBe(3000);
    expect(answers[0].body.updated + answers[1].body.updated).toBe(3000);
    const [{ count }] = await t.sql<{ count: number }>(`SELECT count(*)::int AS count FROM contacts WHERE phone LIKE '+1631556%'`);
    expect(count).toBe(3000);
  });
});

describe('contact export', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = (await t.createUser({ role: 'agent' })).token;
    const contacts = [
      { phone: '+16315550101', name: 'Ana', email: 'ana@example.com', tags: ['vip', 'es'], attributes: { plan: 'pro', seats: 3 } },
      { phone: '+16315550102', name: '=1+2', tags: ['-x'], attributes: { code: '42', flag: 'true', 'a.b': false, note: "'q" } },
      { phone: '+16315550103', name: 'Line\nbreak, "quoted"', tags: ['vip'] },
    ];
    for (const body of contacts) expect((await t.request('POST', '/api/v1/contacts', { token, body })).status).toBe(201);
  });
  afterAll(() => t.close());

  const exportCsv = (query = '') => t.request('GET', `/api/v1/contacts/export${query}`, { token });

  it('streams text/csv: the contact columns, then every attribute key in code-point order, newest contact first', async () => {
    const answer = await exportCsv();
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toBe('attachment; filename="contacts.csv"');
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(recordsOf(answer.text)).toEqual([
      ['phone', 'name', 'email', 'tags', 'wa_user_id', 'a.b', 'code', 'flag', 'note', 'plan', 'seats'],
      ['+16315550103', 'Line\nbreak, "quoted"', '', 'vip', '', '', '', '', '', '', ''],
      ['+16315550102', "'=1+2", '', "'-x", '', 'false', "'42", "'true", "''q", '', ''],
      ['+16315550101', 'Ana', 'ana@example.com', 'vip;es', '', '', '', '', '', 'pro', '3'],
    ]);
  });

  it('applies the list filters q and tag, the header naming only the keys the exported contacts use', async () => {
    expect(recordsOf((await exportCsv('?tag=vip')).text).map((record) => record[0])).toEqual(['phone', '+16315550103', '+16315550101']);
    expect(recordsOf((await exportCsv('?q=ANA')).text)).toEqual([
      ['phone', 'name', 'email', 'tags', 'wa_user_id', 'plan', 'seats'],
      ['+16315550101', 'Ana', 'ana@example.com', 'vip;es', '', 'pro', '3'],
    ]);
    expect(recordsOf((await exportCsv('?q=nobody')).text)).toEqual([['phone', 'name', 'email', 'tags', 'wa_user_id']]);
  });

  it('refuses list paging parameters and unknown ones with 400', async () => {
    expect((await exportCsv('?limit=10')).body).toEqual({ error: 'limit is not a known field' });
    expect((await exportCsv('?tag=')).status).toBe(400);
  });

  it('gives back the same contacts when its file is imported, attribute types included', async () => {
    const exported = (await exportCsv()).text;
    const before = (await t.request('GET', '/api/v1/contacts', { token })).body.data;
    await t.sql('DELETE FROM contacts');
    const imported = await t.request('POST', '/api/v1/contacts/import', { token, payload: exported, headers: CSV });
    expect(imported.body).toEqual({ created: 3, updated: 0, refused: [] });
    const after = (await t.request('GET', '/api/v1/contacts', { token })).body.data;
    const fields = ({ phone, name, email, tags, attributes }: Record<string, unknown>) => ({ phone, name, email, tags, attributes });
    const sorted = (list: Record<string, unknown>[]) => list.map(fields).sort((a, b) => String(a.phone).localeCompare(String(b.phone)));
    expect(sorted(after)).toEqual(sorted(before));
  });
});

import { DataSource } from 'typeorm';
import { ListContactsQuery } from '../src/contacts/contact.dto';
import { ContactRepository } from '../src/contacts/contact.repository';
import { parsePublicId } from '../src/common/ids';
import { createConversation } from './support/factories';
import { Query, startTestApp, TestApp } from './support/test-app';
import { nextMillisecond } from './support/clock';

/** A US number no other test in this file uses: +1631555xxxx. */
let nextPhone = 1000;
const freshPhone = (): string => `+1631555${String(nextPhone++).padStart(4, '0')}`;

interface StoredEvent {
  type: string;
  data: { contact: { id: string; name: string | null; phone: string } };
}

/** The outbox events about one contact, oldest first. */
function eventsOf(t: TestApp, contactId: string): Promise<StoredEvent[]> {
  return t.app
    .get(DataSource)
    .query(`SELECT type, data FROM events WHERE data->'contact'->>'id' = $1 ORDER BY created_at, id`, [contactId]);
}

function listQuery(fields: Partial<ListContactsQuery>): ListContactsQuery {
  return Object.assign(new ListContactsQuery(), { limit: 25 }, fields);
}

describe('contacts', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    // Any authenticated user works the contact book: the tests act as an agent, not the admin.
    token = (await t.createUser({ role: 'agent' })).token;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>) => t.request('POST', '/api/v1/contacts', { token, body });

  it('creates a contact with 201, name and email null, tags and attributes empty when absent, not blocked', async () => {
    const phone = freshPhone();
    const answer = await create({ phone });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^ct_[0-9a-f]{32}$/),
      phone,
      wa_user_id: null,
      username: null,
      name: null,
      email: null,
      tags: [],
      attributes: {},
      blocked: false,
      opted_out: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: answer.body.created_at,
    });
  });

  it('stores name and email trimmed and tags trimmed without repeats', async () => {
    const answer = await create({
      phone: freshPhone(),
      name: '  Maria Lopez ',
      email: ' maria@example.com ',
      tags: [' vip', 'vip ', 'es'],
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: 'Maria Lopez', email: 'maria@example.com', tags: ['vip', 'es'] });
  });

  it.each([['+1 (631) 555-1234'], ['16315551234']])('normalises the phone %s to E.164', async (phone) => {
    const answer = await create({ phone });
    expect(answer.status).toBe(201);
    expect(answer.body.phone).toBe('+16315551234');
    expect((await t.request('DELETE', `/api/v1/contacts/${answer.body.id}`, { token })).status).toBe(204);
  });

  it.each([
    ['no phone', { phone: undefined }, /^phone must be a phone number in international format/],
    ['an unparseable phone', { phone: 'call me' }, /^phone must be a phone number in international format/],
    ['a phone too short to be one', { phone: '+1 631' }, /^phone must be a phone number in international format/],
    ['a phone that is a number, not a string', { phone: 16315551234 }, /^phone must be a phone number/],
    ['an invalid email', { email: 'not-an-email' }, /^email /],
    ['an empty name', { name: '   ' }, /^name /],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, /^name /],
    ['tags that are not an array', { tags: 'vip' }, /^tags must be a list/],
    ['tags null', { tags: null }, /^tags must be a list/],
    ['a tag that is not a string', { tags: [7] }, /^tags must contain only strings/],
    ['a tag over 50 characters', { tags: ['x'.repeat(51)] }, /^tags must each be 1 to 50 characters long/],
    ['an empty tag', { tags: ['  '] }, /^tags must each be 1 to 50 characters long/],
    ['more than 50 tags', { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, /^tags must have at most 50 items/],
  ])('refuses %s with 400 naming the field', async (_, fields, message) => {
    const answer = await create({ phone: freshPhone(), ...fields });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body.error).toMatch(message);
  });

  it('refuses an unknown field with 400 naming it', async () => {
    const answer = await create({ phone: freshPhone(), company: 'Acme' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'company is not a known field' });
  });

  it('refuses a duplicate phone with 409, also when written differently', async () => {
    expect((await create({ phone: '+1 631 555 9876' })).status).toBe(201);
    for (const phone of ['+16315559876', '1-631-555-9876']) {
      const answer = await create({ phone });
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({ error: 'A contact with this phone already exists' });
    }
  });

  it('gets one contact by id', async () => {
    const created = await create({ phone: freshPhone(), name: 'Gina' });
    const answer = await t.request('GET', `/api/v1/contacts/${created.body.id}`, { token });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(created.body);
  });

  it.each([
    ['an unknown id', 'ct_0000000000007000800000000000000a'],
    ['an id with another prefix', 'user_0000000000007000800000000000000a'],
    ['a malformed id', 'ct_42'],
  ])('answers 404 for %s', async (_, id) => {
    const answer = await t.request('GET', `/api/v1/contacts/${id}`, { token });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Contact not found' });
  });

  it('answers 404 when patching or deleting an unknown contact', async () => {
    const id = 'ct_0000000000007000800000000000000b';
    expect((await t.request('PATCH', `/api/v1/contacts/${id}`, { token, body: { name: 'X' } })).body).toEqual({
      error: 'Contact not found',
    });
    expect((await t.request('DELETE', `/api/v1/contacts/${id}`, { token })).body).toEqual({ error: 'Contact not found' });
  });

  it('answers 401 without credentials', async () => {
    expect((await t.request('GET', '/api/v1/contacts')).status).toBe(401);
    expect((await t.request('POST', '/api/v1/contacts', { body: { phone: freshPhone() } })).status).toBe(401);
  });

  it('updates any subset of the fields, leaving the others as they were', async () => {
    const created = await create({ phone: freshPhone(), name: 'Ana', email: 'ana@example.com', tags: ['a'] });
    const phone = freshPhone();
    const answer = await t.request('PATCH', `/api/v1/contacts/${created.body.id}`, {
      token,
      body: { phone: phone.slice(1), tags: ['b', ' b'] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...created.body, phone, tags: ['b'], updated_at: expect.any(String) });
    expect(Date.parse(answer.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
    expect((await t.request('GET', `/api/v1/contacts/${created.body.id}`, { token })).body).toEqual(answer.body);
  });

  it('clears name and email when patched with null', async () => {
    const created = await create({ phone: freshPhone(), name: 'Ana', email: 'ana@example.com' });
    const answer = await t.request('PATCH', `/api/v1/contacts/${created.body.id}`, { token, body: { name: null, email: null } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: null, email: null, phone: created.body.phone });
  });

  it('refuses a patch to a phone another contact has with 409', async () => {
    const first = await create({ phone: freshPhone() });
    const second = await create({ phone: freshPhone() });
    const answer = await t.request('PATCH', `/api/v1/contacts/${second.body.id}`, { token, body: { phone: first.body.phone } });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ error: 'A contact with this phone already exists' });
  });

  it.each([
    ['an empty body', {}, /^Body must set at least one of phone, wa_user_id, name, email, tags, attributes, opted_out$/],
    ['a null phone', { phone: null }, /^phone must be a phone number/],
    ['an unparseable phone', { phone: 'nope' }, /^phone must be a phone number/],
    ['an invalid email', { email: 'nope' }, /^email /],
    ['a tag over 50 characters', { tags: ['x'.repeat(51)] }, /^tags /],
    ['an unknown field', { company: 'Acme' }, /^company is not a known field$/],
  ])('refuses a patch with %s with 400', async (_, body, message) => {
    const created = await create({ phone: freshPhone() });
    const answer = await t.request('PATCH', `/api/v1/contacts/${created.body.id}`, { token, body });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
  });

  it('deletes a contact with 204, after which it is gone', async () => {
    const created = await create({ phone: freshPhone() });
    const answer = await t.request('DELETE', `/api/v1/contacts/${created.body.id}`, { token });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect((await t.request('GET', `/api/v1/contacts/${created.body.id}`, { token })).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/contacts/${created.body.id}`, { token })).status).toBe(404);
  });

  it('refuses to delete the customer of a conversation with 409', async () => {
    const created = await create({ phone: freshPhone() });
    await createConversation(t, { contact_id: parsePublicId('ct', created.body.id)! });
    const answer = await t.request('DELETE', `/api/v1/contacts/${created.body.id}`, { token });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ error: 'This contact has a conversation and cannot be deleted' });
    expect((await t.request('GET', `/api/v1/contacts/${created.body.id}`, { token })).status).toBe(200);
    expect((await eventsOf(t, created.body.id)).map((e) => e.type)).toEqual(['contact.created']);
  });

  it('records contact.created with the contact, in the outbox', async () => {
    const created = await create({ phone: freshPhone(), name: 'Evan' });
    const events = await eventsOf(t, created.body.id);
    expect(events).toEqual([{ type: 'contact.created', data: { contact: created.body } }]);
  });

  it('records contact.updated with the changed contact', async () => {
    const created = await create({ phone: freshPhone(), name: 'Evan' });
    const updated = await t.request('PATCH', `/api/v1/contacts/${created.body.id}`, { token, body: { name: 'Evan Stone' } });
    const events = await eventsOf(t, created.body.id);
    expect(events.map((e) => e.type)).toEqual(['contact.created', 'contact.updated']);
    expect(events[1].data).toEqual({ contact: updated.body });
  });

  it('records no event for a patch that changes nothing', async () => {
    const created = await create({ phone: freshPhone(), name: 'Same', tags: ['x'] });
    const answer = await t.request('PATCH', `/api/v1/contacts/${created.body.id}`, {
      token,
      body: { name: 'Same', tags: ['x'], phone: created.body.phone },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(created.body);
    expect((await eventsOf(t, created.body.id)).map((e) => e.type)).toEqual(['contact.created']);
  });

  it('records contact.deleted with the contact as it was', async () => {
    const created = await create({ phone: freshPhone(), name: 'Gone' });
    await t.request('DELETE', `/api/v1/contacts/${created.body.id}`, { token });
    const events = await eventsOf(t, created.body.id);
    expect(events.map((e) => e.type)).toEqual(['contact.created', 'contact.deleted']);
    expect(events[1].data).toEqual({ contact: created.body });
  });

  it('records no event for a refused change', async () => {
    const created = await create({ phone: freshPhone() });
    const other = await create({ phone: freshPhone() });
    expect((await t.request('PATCH', `/api/v1/contacts/${created.body.id}`, { token, body: { phone: other.body.phone } })).status).toBe(
      409,
    );
    expect((await eventsOf(t, created.body.id)).map((e) => e.type)).toEqual(['contact.created']);
  });
});

describe('contact attributes', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = (await t.createUser({ role: 'agent' })).token;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>) => t.request('POST', '/api/v1/contacts', { token, body });
  const patch = (id: string, body: Record<string, unknown>) => t.request('PATCH', `/api/v1/contacts/${id}`, { token, body });

  it('stores string, number and boolean attributes and answers them on create, read, list and in the event, keys in order', async () => {
    const attributes = { plan: 'pro', seats: 12, ratio: -0.5, churned: false, 'Company.Name': 'Acme', 'x-y_z': 'ünïcødé' };
    const created = await create({ phone: freshPhone(), attributes });
    expect(created.status).toBe(201);
    expect(created.body.attributes).toEqual(attributes);
    const sortedKeys = Object.keys(attributes).sort();
    expect(Object.keys(created.body.attributes)).toEqual(sortedKeys);
    const read = await t.request('GET', `/api/v1/contacts/${created.body.id}`, { token });
    expect(read.body).toEqual(created.body);
    expect(Object.keys(read.body.attributes)).toEqual(sortedKeys);
    const listed = await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(created.body.phone!)}`, { token });
    expect(listed.body.data).toEqual([created.body]);
    expect(await eventsOf(t, created.body.id)).toEqual([{ type: 'contact.created', data: { contact: created.body } }]);
  });

  it('accepts the limits: 50 keys, a 64-character key, a 1,000-character value', async () => {
    const attributes: Record<string, string> = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    attributes[`a${'b'.repeat(63)}`] = 'x'.repeat(1000);
    const created = await create({ phone: freshPhone(), attributes });
    expect(created.status).toBe(201);
    expect(created.body.attributes).toEqual(attributes);
  });

  it('replaces the whole attributes object on PATCH, leaving the other fields, and {} removes them all', async () => {
    const created = await create({ phone: freshPhone(), name: 'Ana', tags: ['vip'], attributes: { plan: 'pro', seats: 3 } });
    const replaced = await patch(created.body.id, { attributes: { plan: 'basic', trial: true } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ ...created.body, attributes: { plan: 'basic', trial: true }, updated_at: expect.any(String) });
    const cleared = await patch(created.body.id, { attributes: {} });
    expect(cleared.body.attributes).toEqual({});
    expect((await t.request('GET', `/api/v1/contacts/${created.body.id}`, { token })).body).toEqual(cleared.body);
    const events = await eventsOf(t, created.body.id);
    expect(events.map((e) => e.type)).toEqual(['contact.created', 'contact.updated', 'contact.updated']);
    expect(events[2].data).toEqual({ contact: cleared.body });
  });

  it('records nothing for a PATCH of the same attributes in another order', async () => {
    const created = await create({ phone: freshPhone(), attributes: { a: 1, b: 'two', c: true } });
    const same = await patch(created.body.id, { attributes: { c: true, b: 'two', a: 1 } });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(created.body);
    const changed = await patch(created.body.id, { attributes: { c: true, b: 'two', a: 2 } });
    expect(changed.body.attributes).toEqual({ a: 2, b: 'two', c: true });
    expect((await eventsOf(t, created.body.id)).map((e) => e.type)).toEqual(['contact.created', 'contact.updated']);
  });

  it.each([
    ['not an object', ['plan'], /^attributes must be an object$/],
    ['null', null, /^attributes must be an object$/],
    ['51 keys', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])), /^attributes must have at most 50 keys, not 51$/],
    ['a key with a space', { 'first name': 'Ana' }, /^attributes: attribute key "first name" must be 1 to 64 characters/],
    ['a key starting with a digit', { '1st': 'x' }, /^attributes: attribute key "1st" must be/],
    ['a key starting with an underscore', { _private: 'x' }, /^attributes: attribute key "_private" must be/],
    ['a key of 65 characters', { [`a${'b'.repeat(64)}`]: 'x' }, /^attributes: attribute key "ab+" must be/],
    ['a key named like a field', { Email: 'x' }, /^attributes: attribute key "Email" is reserved: email is a field of the contact$/],
    ['a null value', { plan: null }, /^attributes\.plan must be a string of 1 to 1000 characters, a number or a boolean$/],
    ['an object value', { plan: { name: 'pro' } }, /^attributes\.plan must be a string/],
    ['an array value', { plan: ['pro'] }, /^attributes\.plan must be a string/],
    ['an empty string', { plan: '' }, /^attributes\.plan must be a string/],
    ['a string of 1,001 characters', { plan: 'x'.repeat(1001) }, /^attributes\.plan must be a string/],
  ])('refuses attributes that are %s with 400 naming the key, on create and on update', async (_, attributes, message) => {
    const refused = await create({ phone: freshPhone(), attributes });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body)).toEqual(['error']);
    expect(refused.body.error).toMatch(message);
    const existing = await create({ phone: freshPhone(), attributes: { plan: 'pro' } });
    const patched = await patch(existing.body.id, { attributes });
    expect(patched.status).toBe(400);
    expect(patched.body.error).toMatch(message);
    expect((await t.request('GET', `/api/v1/contacts/${existing.body.id}`, { token })).body.attributes).toEqual({ plan: 'pro' });
  });

  it('refuses a number too large to be finite (1e400) with 400, and takes a large finite one', async () => {
    const send = (number: string) =>
      t.request('POST', '/api/v1/contacts', {
        token,
        payload: `{"phone":"${freshPhone()}","attributes":{"big":${number}}}`,
        headers: { 'content-type': 'application/json' },
      });
    const refused = await send('1e400');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^attributes\.big must be/);
    const taken = await send('1e300');
    expect(taken.status).toBe(201);
    expect(taken.body.attributes).toEqual({ big: 1e300 });
  });
});

describe('contacts list', () => {
  let t: TestApp;
  let token: string;
  /** In creation order. */
  const created: { id: string; name: string | null; phone: string | null; email: string | null; tags: string[] }[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    token = (await t.createUser()).token;
    const bodies = [
      { phone: '+16315550101', name: 'Maria Lopez', email: 'maria@example.org', tags: ['vip'] },
      { phone: '+16315550102', name: 'John Smith', tags: ['es'] },
      { phone: '+16315550103', email: 'noname@Example.com', tags: ['vip', 'es'] },
      { phone: '+442071838750', name: '100% Real_Name' },
      { phone: '+16315550105', name: '1000 Reals' },
      { phone: '+16315550106', name: 'Ana Maria' },
      { phone: '+16315550107', name: 'Zed' },
    ];
    for (const body of bodies) {
      const answer = await t.request('POST', '/api/v1/contacts', { token, body });
      if (answer.status !== 201) throw new Error(answer.text);
      created.push(answer.body);
      // Distinct created_at values, so "newest first" is the reverse of creation order.
      await nextMillisecond();
    }
  });
  afterAll(() => t.close());

  const list = async (query: Query): Promise<string[]> => {
    const answer = await t.request('GET', `/api/v1/contacts${query}`, { token });
    expect(answer.status).toBe(200);
    return answer.body.data.map((c: { phone: string | null }) => c.phone!);
  };
  const phonesOf = (...indexes: number[]) => indexes.map((i) => created[i].phone);

  it('lists every contact newest first, with next_cursor null on the last page', async () => {
    const answer = await t.request('GET', '/api/v1/contacts', { token });
    expect(answer.body.data).toEqual([...created].reverse());
    expect(answer.body.next_cursor).toBeNull();
  });

  it('walks every contact exactly once with limit and next_cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Query = cursor ? `?limit=3&cursor=${cursor}` : '?limit=3';
      const answer = await t.request('GET', `/api/v1/contacts${query}`, { token });
      expect(answer.status).toBe(200);
      expect(answer.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...answer.body.data.map((c: { id: string }) => c.id));
      cursor = answer.body.next_cursor as string | null;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual([...created].reverse().map((c) => c.id));
    expect(pages).toBe(3);
  });

  it('finds contacts by part of the name, case-insensitively', async () => {
    expect(await list('?q=MARIA')).toEqual(phonesOf(5, 0));
    expect(await list('?q=lopez')).toEqual(phonesOf(0));
  });

  it('finds contacts by part of the phone', async () => {
    expect(await list('?q=5550102')).toEqual(phonesOf(1));
    expect(await list(`?q=${encodeURIComponent('+4420')}`)).toEqual(phonesOf(3));
  });

  it('finds contacts by part of the email, case-insensitively', async () => {
    expect(await list('?q=EXAMPLE.')).toEqual(phonesOf(2, 0));
    expect(await list('?q=noname%40example')).toEqual(phonesOf(2));
  });

  it('takes % and _ in q literally', async () => {
    expect(await list(`?q=${encodeURIComponent('100%')}`)).toEqual(phonesOf(3));
    expect(await list(`?q=${encodeURIComponent('a_l')}`)).toEqual([]);
    expect(await list(`?q=${encodeURIComponent('real_')}`)).toEqual(phonesOf(3));
  });

  it('filters by tag', async () => {
    expect(await list('?tag=vip')).toEqual(phonesOf(2, 0));
    expect(await list('?tag=es')).toEqual(phonesOf(2, 1));
    expect(await list('?tag=VIP')).toEqual([]);
  });

  it('combines q, tag and pagination', async () => {
    const first = await t.request('GET', '/api/v1/contacts?tag=vip&q=example&limit=1', { token });
    expect(first.body.data.map((c: { phone: string | null }) => c.phone!)).toEqual(phonesOf(2));
    const second = await t.request('GET', `/api/v1/contacts?tag=vip&q=example&limit=1&cursor=${first.body.next_cursor}`, { token });
    expect(second.body.data.map((c: { phone: string | null }) => c.phone!)).toEqual(phonesOf(0));
    expect(second.body.next_cursor).toBeNull();
  });

  it('treats an empty q as no filter', async () => {
    expect(await list('?q=')).toHaveLength(created.length);
  });

  it.each([
    ['limit=0', 'limit=0', /^limit /],
    ['limit=101', 'limit=101', /^limit /],
    ['a foreign cursor', 'cursor=not-a-cursor', /^cursor is not a cursor returned by this list$/],
    ['a q over 200 characters', `q=${'x'.repeat(201)}`, /^q /],
    ['a tag over 50 characters', `tag=${'x'.repeat(51)}`, /^tag /],
    ['two tags', 'tag=a&tag=b', /^tag /],
    ['an unknown parameter', 'sort=name', /^sort is not a known field$/],
  ])('refuses %s with 400', async (_, query, message) => {
    const answer = await t.request('GET', `/api/v1/contacts?${query}`, { token });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
  });
});

describe('contacts list query plan', () => {
  let t: TestApp;
  let contacts: ContactRepository;
  let dataSource: DataSource;
  /** Part of one contact's name: a search as selective as a real one (names are random hex here). */
  let rareName: string;
  const md5 = async (text: string): Promise<string> =>
    ((await dataSource.query('SELECT md5($1) AS hash', [text])) as { hash: string }[])[0].hash;
  beforeAll(async () => {
    t = await startTestApp();
    contacts = t.app.get(ContactRepository);
    dataSource = t.app.get(DataSource);
    await dataSource.query(`
      INSERT INTO contacts (id, phone, name, email, tags, created_at, updated_at)
      SELECT md5(i::text)::uuid, '+1631' || lpad(i::text, 7, '0'), 'Customer ' || substr(md5('n' || i), 1, 10), substr(md5('e' || i), 1, 10) || '@example.com',
             CASE WHEN i % 500 = 0 THEN ARRAY['vip', 'regular'] ELSE ARRAY['regular'] END,
             now() - i * interval '1 second', now() - i * interval '1 second'
      FROM generate_series(1, 5000) AS i`);
    // VACUUM too: the planner reads a GIN index's size from its metapage, which only VACUUM updates.
    await dataSource.query('VACUUM ANALYZE contacts');
    rareName = (await md5('n4242')).slice(2, 8);
  });
  afterAll(() => t.close());

  /** The plan of the exact SQL the service runs for this query; sequential scans off, to ask whether an index CAN serve it. */
  async function planOf(query: ListContactsQuery): Promise<string> {
    const { text, values } = contacts.listStatement(query, query).compile();
    return dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const rows: { 'QUERY PLAN': string }[] = await manager.query(`EXPLAIN ${text}`, values);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it('serves q from contacts_search_idx', async () => {
    expect(await planOf(listQuery({ q: rareName }))).toContain('contacts_search_idx');
  });

  it('serves tag from contacts_tags_idx', async () => {
    expect(await planOf(listQuery({ tag: 'vip' }))).toContain('contacts_tags_idx');
  });

  it('serves the plain list and its later pages from contacts_created_at_id_idx', async () => {
    expect(await planOf(listQuery({}))).toContain('contacts_created_at_id_idx');
    const cursor = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', '00000000-0000-7000-8000-000000000000'])).toString('base64url');
    expect(await planOf(listQuery({ cursor }))).toContain('contacts_created_at_id_idx');
  });

  it('answers a selective q and a tag through the API on the larger table', async () => {
    const token = await t.adminToken();
    const answer = await t.request('GET', `/api/v1/contacts?q=${rareName.toUpperCase()}&limit=5`, { token });
    expect(answer.body.data.map((c) => c.name)).toEqual([`Customer ${(await md5('n4242')).slice(0, 10)}`]);
    const vip = await t.request('GET', '/api/v1/contacts?tag=vip&limit=100', { token });
    expect(vip.body.data).toHaveLength(10);
  });
});

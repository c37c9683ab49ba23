import { Query, startTestApp, TestApp } from './support/test-app';

describe('users', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  const newUser = (overrides: Record<string, unknown> = {}) => ({
    email: `u${Math.random().toString(36).slice(2)}@example.com`,
    password: 'long-enough-pw',
    name: 'Uma',
    role: 'agent',
    ...overrides,
  });

  it.each(['password', 'name', 'role', 'beta_access'])(
    'refuses "%s": null with 400 naming the field, on creation and on change',
    async (field) => {
      const created = await t.request('POST', '/api/v1/users', { token: admin, body: newUser({ [field]: null }) });
      expect(created.status).toBe(400);
      expect(created.body.error).toMatch(new RegExp(`^${field} `));
      const agent = await t.createUser();
      const changed = await t.request('PATCH', `/api/v1/users/${agent.id}`, { token: admin, body: { [field]: null } });
      expect(changed.status).toBe(400);
      expect(changed.body.error).toMatch(new RegExp(`^${field} `));
      // Positive control: the field left out is fine.
      expect((await t.request('PATCH', `/api/v1/users/${agent.id}`, { token: admin, body: {} })).status).toBe(200);
    },
  );

  it('creates a user with 201 and never returns the password', async () => {
    const body = newUser({ beta_access: true });
    const answer = await t.request('POST', '/api/v1/users', { token: admin, body });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^user_[0-9a-f]{32}$/),
      email: body.email,
      name: 'Uma',
      role: 'agent',
      beta_access: true,
      status: 'active',
      two_factor_enabled: false,
      locked_until: null,
      availability: 'offline',
      created_at: expect.any(String),
    });
    expect(answer.text).not.toContain('long-enough-pw');
    expect(answer.text).not.toContain('scrypt');
  });

  it('stores the e-mail lower-cased, so a differently-cased duplicate is a 409', async () => {
    const body = newUser({ email: 'Case.Test@Example.com' });
    expect((await t.request('POST', '/api/v1/users', { token: admin, body })).body.email).toBe('case.test@example.com');
    const duplicate = await t.request('POST', '/api/v1/users', { token: admin, body: { ...body, email: 'CASE.test@example.com' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ error: 'A user with this email already exists' });
  });

  it.each([
    ['an invalid e-mail', { email: 'not-an-email' }, /^email /],
    ['a short password', { password: 'short' }, /^password /],
    ['an unknown role', { role: 'owner' }, /^role /],
    ['a mistyped beta_access', { beta_access: 'yes' }, /^beta_access /],
    ['an empty name', { name: '   ' }, /^name /],
  ])('refuses %s with 400 naming the field', async (_, overrides, message) => {
    const answer = await t.request('POST', '/api/v1/users', { token: admin, body: newUser(overrides) });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
    expect(Object.keys(answer.body)).toEqual(['error']);
  });

  it('refuses an unknown field with 400 naming it', async () => {
    const answer = await t.request('POST', '/api/v1/users', { token: admin, body: newUser({ is_owner: true }) });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'is_owner is not a known field' });
  });

  it('gets one user by id', async () => {
    const created = await t.request('POST', '/api/v1/users', { token: admin, body: newUser() });
    const answer = await t.request('GET', `/api/v1/users/${created.body.id}`, { token: admin });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(created.body);
  });

  it.each([
    ['an unknown id', 'user_0000000000007000800000000000000a'],
    ['an id with another prefix', 'conv_0000000000007000800000000000000a'],
    ['a malformed id', 'user_42'],
  ])('answers 404 for %s', async (_, id) => {
    const answer = await t.request('GET', `/api/v1/users/${id}`, { token: admin });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'User not found' });
  });

  it('updates any subset of the fields', async () => {
    const created = await t.request('POST', '/api/v1/users', { token: admin, body: newUser() });
    const answer = await t.request('PATCH', `/api/v1/users/${created.body.id}`, {
      token: admin,
      body: { name: 'Renamed', beta_access: true },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...created.body, name: 'Renamed', beta_access: true });
  });

  it('answers 404 when patching or deleting an unknown user', async () => {
    const id = 'user_0000000000007000800000000000000b';
    expect((await t.request('PATCH', `/api/v1/users/${id}`, { token: admin, body: { name: 'X' } })).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/users/${id}`, { token: admin })).status).toBe(404);
  });

  it('refuses to demote or delete the last admin with 422', async () => {
    const me = await t.request('GET', '/api/v1/me', { token: admin });
    const demote = await t.request('PATCH', `/api/v1/users/${me.body.id}`, { token: admin, body: { role: 'agent' } });
    expect(demote.status).toBe(422);
    expect(demote.body).toEqual({ error: 'The last admin cannot be removed or demoted' });
    expect((await t.request('DELETE', `/api/v1/users/${me.body.id}`, { token: admin })).status).toBe(422);
  });

  it('deletes a user with 204, after which it is gone', async () => {
    const created = await t.request('POST', '/api/v1/users', { token: admin, body: newUser() });
    const answer = await t.request('DELETE', `/api/v1/users/${created.body.id}`, { token: admin });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect((await t.request('GET', `/api/v1/users/${created.body.id}`, { token: admin })).status).toBe(404);
  });
});

describe('users list pagination', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
    for (let i = 0; i < 6; i++) {
      await t.request('POST', '/api/v1/users', {
        token: admin,
        body: { email: `page${i}@example.com`, password: 'long-enough-pw', name: `P${i}`, role: 'agent' },
      });
    }
  });
  afterAll(() => t.close());

  it('walks every user exactly once, oldest first, with limit and next_cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Query = cursor ? `?limit=3&cursor=${cursor}` : '?limit=3';
      const answer = await t.request('GET', `/api/v1/users${query}`, { token: admin });
      expect(answer.status).toBe(200);
      expect(answer.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...answer.body.data.map((u: { email: string }) => u.email));
      cursor = answer.body.next_cursor as string | null;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(['admin@example.com', ...[0, 1, 2, 3, 4, 5].map((i) => `page${i}@example.com`)]);
    expect(pages).toBe(3);
  });

  it('defaults to 25 per page with next_cursor null on the last page', async () => {
    const answer = await t.request('GET', '/api/v1/users', { token: admin });
    expect(answer.body.data).toHaveLength(7);
    expect(answer.body.next_cursor).toBeNull();
  });

  it.each([['0'], ['101'], ['abc']])('refuses limit=%s with 400 naming limit', async (limit) => {
    const answer = await t.request('GET', `/api/v1/users?limit=${limit}`, { token: admin });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^limit /);
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['a tampered key', Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', "x' OR 1=1"])).toString('base64url')],
    [
      'a key on a day the calendar has not',
      Buffer.from(JSON.stringify(['2024-02-30T00:00:00.000Z', '01a22432-fd74-7966-8a85-c4263f6d1834'])).toString('base64url'),
    ],
  ])('refuses a cursor that is %s with 400', async (_, cursor) => {
    const answer = await t.request('GET', `/api/v1/users?cursor=${cursor}`, { token: admin });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'cursor is not a cursor returned by this list' });
  });
});

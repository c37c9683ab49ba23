import { describeWithPostgresAndRedis } from './support/environment';
import { startTestApp, startTwoInstances, TestApp } from './support/test-app';

describe("one's own profile (PATCH /api/v1/me)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const patch = (token: string, body: unknown) => t.request('PATCH', '/api/v1/me', { token, body });

  it('shows email_notifications in GET /api/v1/me, immediate by default, and not in the team list', async () => {
    const user = await t.createUser();
    const me = await t.request('GET', '/api/v1/me', { token: user.token });
    expect(me.body).toEqual({
      id: user.id,
      email: user.email,
      name: 'Test Agent',
      role: 'agent',
      beta_access: false,
      status: 'active',
      two_factor_enabled: false,
      locked_until: null,
      two_factor_required: false,
      email_notifications: 'immediate',
      password_change_required: false,
      availability: 'offline',
      created_at: expect.any(String),
    });
    const listed = await t.request('GET', `/api/v1/users/${user.id}`, { token: user.token });
    expect((listed.body as object as Record<string, unknown>).email_notifications).toBeUndefined();
  });

  it('changes the name and email_notifications, answering the caller; the token keeps working', async () => {
    const user = await t.createUser();
    const answer = await patch(user.token, { name: '  Renamed Agent ', email_notifications: 'digest' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: user.id, name: 'Renamed Agent', email_notifications: 'digest' });
    expect(answer.body.token).toBeUndefined();
    const me = await t.request('GET', '/api/v1/me', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'Renamed Agent', email_notifications: 'digest' });
    expect((await patch(user.token, { email_notifications: 'off' })).body.email_notifications).toBe('off');
  });

  it('changes the password with the current one: answers a new token, and every earlier token stops working', async () => {
    const user = await t.createUser();
    const otherDevice = await t.login(user.email, user.password);
    const answer = await patch(user.token, { password: 'a-new-password-22', current_password: user.password });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: user.id, token: expect.any(String), expires_at: expect.stringMatching(/Z$/) });
    expect((await t.request('GET', '/api/v1/me', { token: answer.body.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: user.token })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/me', { token: otherDevice })).status).toBe(401);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } })).status).toBe(401);
    expect(await t.login(user.email, 'a-new-password-22')).toEqual(expect.any(String));
  });

  it('refuses a wrong current_password with 422, and changes nothing', async () => {
    const user = await t.createUser();
    const answer = await patch(user.token, { password: 'a-new-password-22', current_password: 'not-the-password', name: 'Nope' });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: 'current_password is incorrect' });
    expect((await t.request('GET', '/api/v1/me', { token: user.token })).body.name).toBe('Test Agent');
    expect(await t.login(user.email, user.password)).toEqual(expect.any(String));
  });

  it.each([
    ['an empty body', {}, 'Body must set at least one of name, password, email_notifications, availability'],
    ['a password without current_password', { password: 'a-new-password-22' }, 'current_password is required to change the password'],
    ['current_password alone', { current_password: 'x', name: 'A' }, 'current_password is only needed with password'],
    ['an unknown email_notifications', { email_notifications: 'weekly' }, 'email_notifications must be one of off, immediate, digest'],
    ['a short password', { password: 'short', current_password: 'x' }, /password/],
    ['a field it does not take', { role: 'admin' }, /role/],
  ])('refuses %s with 400', async (_, body, error) => {
    const user = await t.createUser();
    const answer = await patch(user.token, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: typeof error === 'string' ? error : expect.stringMatching(error) });
  });

  it('answers 401 without a token', async () => {
    expect((await t.request('PATCH', '/api/v1/me', { body: { name: 'X' } })).status).toBe(401);
  });
});

describeWithPostgresAndRedis('password change across instances (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let a: TestApp;
  let b: TestApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, close } = await startTwoInstances());
  });
  afterAll(() => close());

  it('revokes the earlier tokens on the other instance too, and the new token works there', async () => {
    const user = await a.createUser();
    expect((await b.request('GET', '/api/v1/me', { token: user.token })).status).toBe(200);
    const answer = await a.request('PATCH', '/api/v1/me', {
      token: user.token,
      body: { password: 'changed-on-a-1234', current_password: user.password },
    });
    expect(answer.status).toBe(200);
    expect((await b.request('GET', '/api/v1/me', { token: user.token })).status).toBe(401);
    expect((await b.request('GET', '/api/v1/me', { token: answer.body.token })).status).toBe(200);
  });
});

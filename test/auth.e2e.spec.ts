import { parsePublicId } from '../src/common/ids';
import { JwtService } from '@nestjs/jwt';
import { eventually } from './support/channel';
import { describeWithPostgresAndRedis } from './support/environment';
import { ADMIN, startTestApp, startTwoInstances, TestApp } from './support/test-app';

describe('authentication', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates the first admin from ADMIN_EMAIL and ADMIN_PASSWORD and lets them log in', async () => {
    const answer = await t.request('POST', '/api/v1/auth/login', { body: ADMIN });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      token: expect.any(String),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      user: {
        id: expect.stringMatching(/^user_[0-9a-f]{32}$/),
        email: ADMIN.email,
        name: 'Admin',
        role: 'admin',
        beta_access: true,
        status: 'active',
        two_factor_enabled: false,
        locked_until: null,
        availability: 'offline',
        created_at: expect.any(String),
      },
    });
    expect(Date.parse((answer.body as { expires_at: string }).expires_at) - Date.now()).toBeGreaterThan(11 * 3600_000);
  });

  it('accepts the e-mail in any case', async () => {
    const answer = await t.request('POST', '/api/v1/auth/login', { body: { ...ADMIN, email: ADMIN.email.toUpperCase() } });
    expect(answer.status).toBe(200);
  });

  it('refuses a wrong password and an unknown e-mail with the same 401', async () => {
    const wrong = await t.request('POST', '/api/v1/auth/login', { body: { ...ADMIN, password: 'not-the-password' } });
    const unknown = await t.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'whatever-123' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Email or password is incorrect' });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('answers GET /api/v1/me with the caller', async () => {
    const answer = await t.request('GET', '/api/v1/me', { token: await t.adminToken() });
    expect(answer.status).toBe(200);
    expect(answer.body.email).toBe(ADMIN.email);
    expect(answer.body).not.toHaveProperty('password_hash');
  });

  it('refuses a request without credentials with 401', async () => {
    const answer = await t.request('GET', '/api/v1/me');
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Authentication required: send Authorization: Bearer <token>' });
  });

  it.each([
    ['a malformed header', 'Token abc'],
    ['a token that is not a JWT', 'Bearer not-a-jwt'],
  ])('refuses %s with 401', async (_, header) => {
    const answer = await t.request('GET', '/api/v1/me', { headers: { authorization: header } });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Token is invalid or has expired' });
  });

  it('refuses a token signed with another secret with 401', async () => {
    const me = await t.request('GET', '/api/v1/me', { token: await t.adminToken() });
    const forged = new JwtService({ secret: 'some-other-secret-of-enough-length!!' }).sign({
      sub: parsePublicId('user', me.body.id)!,
      ver: 0,
    });
    expect((await t.request('GET', '/api/v1/me', { token: forged })).status).toBe(401);
  });

  it('refuses an expired token with 401', async () => {
    const me = await t.request('GET', '/api/v1/me', { token: await t.adminToken() });
    const expired = new JwtService({ secret: t.config.sessionSecret }).sign({
      sub: parsePublicId('user', me.body.id)!,
      ver: 0,
      exp: Math.floor(Date.now() / 1000) - 10,
    });
    const answer = await t.request('GET', '/api/v1/me', { token: expired });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Token is invalid or has expired' });
  });

  it('refuses a token that expires after it was last accepted', async () => {
    const me = await t.request('GET', '/api/v1/me', { token: await t.adminToken() });
    // An hour ahead, so the first request is in time however slow the engine; the clock is then moved past it.
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const shortLived = new JwtService({ secret: t.config.sessionSecret }).sign({ sub: parsePublicId('user', me.body.id)!, ver: 0, exp });
    expect((await t.request('GET', '/api/v1/me', { token: shortLived })).status).toBe(200);
    // The clock past its expiry, for the service in this process (the token's check reads Date.now).
    const now = jest.spyOn(Date, 'now').mockReturnValue((exp + 1) * 1000);
    try {
      expect((await t.request('GET', '/api/v1/me', { token: shortLived })).status).toBe(401);
    } finally {
      now.mockRestore();
    }
  });

  it('refuses the tokens of a deleted user with 401', async () => {
    const agent = await t.createUser();
    expect((await t.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/users/${agent.id}`, { token: await t.adminToken() })).status).toBe(204);
    const answer = await t.request('GET', '/api/v1/me', { token: agent.token });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Token has been revoked' });
  });

  it('revokes on logout the token it is called with, and only that one', async () => {
    const agent = await t.createUser();
    const secondDevice = await t.login(agent.email, agent.password);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: agent.token })).status).toBe(204);
    expect((await t.request('GET', '/api/v1/me', { token: agent.token })).body).toEqual({ error: 'Token has been revoked' });
    expect((await t.request('GET', '/api/v1/me', { token: secondDevice })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: await t.login(agent.email, agent.password) })).status).toBe(200);
  });

  it('revokes every token of the caller on logout with everywhere=true', async () => {
    const agent = await t.createUser();
    const secondDevice = await t.login(agent.email, agent.password);
    expect((await t.request('POST', '/api/v1/auth/logout?everywhere=true', { token: agent.token })).status).toBe(204);
    expect((await t.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/me', { token: secondDevice })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/me', { token: await t.login(agent.email, agent.password) })).status).toBe(200);
  });

  it('revokes the tokens of a user whose password an admin changes', async () => {
    const agent = await t.createUser();
    const changed = await t.request('PATCH', `/api/v1/users/${agent.id}`, {
      token: await t.adminToken(),
      body: { password: 'a-brand-new-password' },
    });
    expect(changed.status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(401);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: agent.email, password: agent.password } })).status).toBe(401);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: agent.email, password: 'a-brand-new-password' } })).status).toBe(
      200,
    );
  });

  it('refuses a login body without a password with 400 naming the field', async () => {
    const answer = await t.request('POST', '/api/v1/auth/login', { body: { email: ADMIN.email } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^password /);
  });
});

describe('roles', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lets an agent read the team but not change it', async () => {
    const agent = await t.createUser();
    expect((await t.request('GET', '/api/v1/users', { token: agent.token })).status).toBe(200);
    const create = await t.request('POST', '/api/v1/users', {
      token: agent.token,
      body: { email: 'x@example.com', password: 'long-enough-1', name: 'X', role: 'agent' },
    });
    expect(create.status).toBe(403);
    expect(create.body).toEqual({ error: 'This action requires the admin role' });
    expect((await t.request('PATCH', `/api/v1/users/${agent.id}`, { token: agent.token, body: { role: 'admin' } })).status).toBe(403);
    expect((await t.request('DELETE', `/api/v1/users/${agent.id}`, { token: agent.token })).status).toBe(403);
  });

  it('applies a role change on the next request, without a new token', async () => {
    const agent = await t.createUser();
    await t.request('PATCH', `/api/v1/users/${agent.id}`, { token: await t.adminToken(), body: { role: 'admin' } });
    const create = await t.request('POST', '/api/v1/users', {
      token: agent.token,
      body: { email: 'promoted-made-this@example.com', password: 'long-enough-1', name: 'Y', role: 'agent' },
    });
    expect(create.status).toBe(201);
  });
});

describe('beta access restriction (BETA_ACCESS_ONLY=true)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { BETA_ACCESS_ONLY: 'true' } });
  });
  afterAll(() => t.close());

  it('answers 403 "Beta access required" to an agent without beta access', async () => {
    const agent = await t.createUser({ beta_access: false });
    const answer = await t.request('GET', '/api/v1/me', { token: agent.token });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: 'Beta access required' });
  });

  it('lets in an agent with beta access, admins, login and health', async () => {
    const agent = await t.createUser({ beta_access: true });
    expect((await t.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: await t.adminToken() })).status).toBe(200);
    const outsider = await t.createUser({ beta_access: false });
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: outsider.email, password: outsider.password } })).status).toBe(
      200,
    );
    expect((await t.request('GET', '/api/health', { token: outsider.token })).status).toBe(200);
  });
});

describeWithPostgresAndRedis('revocation across instances (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let a: TestApp;
  let b: TestApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, close } = await startTwoInstances());
  });
  afterAll(() => close());

  // B has the user cached (a request just passed); within the cache's 5 s only the broadcast can make B look again.
  const refusedByBWithinTheCacheTime = async (token: string, changedAt: number) => {
    await eventually(async () => expect((await b.request('GET', '/api/v1/me', { token })).status).toBe(401), 4_000);
    expect(Date.now() - changedAt).toBeLessThan(5_000);
  };

  it("stops a deleted user's token on the other instance at once", async () => {
    const agent = await a.createUser();
    expect((await b.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(200);
    const changedAt = Date.now();
    expect((await a.request('DELETE', `/api/v1/users/${agent.id}`, { token: await a.adminToken() })).status).toBe(204);
    await refusedByBWithinTheCacheTime(agent.token, changedAt);
  });

  it('stops the tokens of a user whose password changed on the other instance at once', async () => {
    const agent = await a.createUser();
    expect((await b.request('GET', '/api/v1/me', { token: agent.token })).status).toBe(200);
    const changedAt = Date.now();
    expect(
      (await a.request('PATCH', `/api/v1/users/${agent.id}`, { token: await a.adminToken(), body: { password: 'another-long-password' } }))
        .status,
    ).toBe(200);
    await refusedByBWithinTheCacheTime(agent.token, changedAt);
  });

  it('takes a demoted admin out of admin routes on the other instance at once', async () => {
    const admin = await a.createUser({ role: 'admin' });
    expect((await b.request('GET', '/api/v1/webhooks', { token: admin.token })).status).toBe(200);
    expect((await a.request('PATCH', `/api/v1/users/${admin.id}`, { token: await a.adminToken(), body: { role: 'agent' } })).status).toBe(
      200,
    );
    await eventually(async () => expect((await b.request('GET', '/api/v1/webhooks', { token: admin.token })).status).toBe(403), 4_000);
  });
});

import { randomBytes } from 'node:crypto';
import { eventually } from './support/channel';
import { describeWithPostgresAndRedis } from './support/environment';
import { linkIn, SmtpTestServer } from './support/mail-servers';
import { startTestApp, startTwoInstances, TestApp } from './support/test-app';

const APP_URL = 'https://inbox.example.test';
const uuidOf = (publicId: string) => publicId.replace(/^user_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
const nobody = () => `nobody-${randomBytes(4).toString('hex')}@example.com`;
const emailSettings = (smtp: SmtpTestServer) => ({
  EMAIL_PROVIDER: 'smtp',
  EMAIL_SMTP_URL: smtp.url(),
  EMAIL_FROM: 'team@example.test',
  APP_URL,
  EMAIL_RETRY_SCHEDULE: '100ms',
});

describe('password reset through a real SMTP server', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({ env: emailSettings(smtp) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const forgot = (email: string, ip?: string) => t.request('POST', '/api/v1/auth/forgot-password', { body: { email }, ip });
  const reset = (token: string, password: string) => t.request('POST', '/api/v1/auth/reset-password', { body: { token, password } });
  /** Asks for a link and reads it back from the e-mail (the `n`th to this address). */
  const resetLink = async (email: string, n = 1) => {
    expect((await forgot(email)).status).toBe(202);
    return linkIn((await smtp.waitFor(email, n))[n - 1], APP_URL, '/reset-password');
  };

  it('answers 202 with no body, and e-mails a link to <APP_URL>/reset-password valid for an hour', async () => {
    const user = await t.createUser();
    const answer = await forgot(user.email.toUpperCase());
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
    const [received] = await smtp.waitFor(user.email);
    expect(received).toMatchObject({ from: 'team@example.test', subject: 'Reset your Team Inbox password' });
    expect(received.text).toContain('within an hour');
    expect(linkIn(received, APP_URL, '/reset-password').token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('sets the new password with the link read from the e-mail, once; every earlier token stops working', async () => {
    const user = await t.createUser();
    const { token } = await resetLink(user.email);
    const answer = await reset(token, 'brand-new-password-1');
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect((await t.request('GET', '/api/v1/me', { token: user.token })).status).toBe(401);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } })).status).toBe(401);
    const fresh = await t.login(user.email, 'brand-new-password-1');
    expect((await t.request('GET', '/api/v1/me', { token: fresh })).status).toBe(200);

    const again = await reset(token, 'yet-another-password-2');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: 'token is invalid, expired or already used' });
    expect(await t.login(user.email, 'brand-new-password-1')).toEqual(expect.any(String));
  });

  it('works only within its hour', async () => {
    const user = await t.createUser();
    const { token } = await resetLink(user.email);
    const [row] = await t.sql<{ within: boolean }>(
      `SELECT expires_at BETWEEN now() + interval '59 minutes' AND now() + interval '61 minutes' AS within FROM account_tokens
        WHERE user_id = $1 AND purpose = 'password_reset'`,
      [uuidOf(user.id)],
    );
    expect(row.within).toBe(true);
    await t.sql(`UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [uuidOf(user.id)]);
    expect((await reset(token, 'too-late-password-1')).status).toBe(400);
    await t.sql(`UPDATE account_tokens SET expires_at = now() + interval '1 minute' WHERE user_id = $1`, [uuidOf(user.id)]);
    expect((await reset(token, 'in-time-password-1')).status).toBe(204);
    expect(await t.login(user.email, 'in-time-password-1')).toEqual(expect.any(String));
  });

  it('answers an unknown address the same 202 and sends it nothing', async () => {
    const user = await t.createUser();
    const unknown = nobody();
    const known = await forgot(user.email);
    const missing = await forgot(unknown);
    expect(missing.status).toBe(known.status);
    expect(missing.text).toBe(known.text);
    const headerNames = (answer: typeof known) =>
      Object.keys(answer.headers).filter((name) => !/^(x-request-id|date|ratelimit-.*)$/.test(name));
    expect(headerNames(missing).sort()).toEqual(headerNames(known).sort());
    // Requests are handled one after another: once a later known address has its e-mail, the unknown one was handled.
    const marker = await t.createUser();
    expect((await forgot(marker.email)).status).toBe(202);
    await smtp.waitFor(marker.email);
    expect(smtp.to(unknown)).toEqual([]);
    expect(await t.sql('SELECT id FROM outbound_emails WHERE to_address = $1', [unknown])).toEqual([]);
  });

  it('sends nothing to an invited user, who has no password to reset', async () => {
    const invited = `invited-${randomBytes(4).toString('hex')}@example.com`;
    const created = await t.request('POST', '/api/v1/users', {
      token: await t.adminToken(),
      body: { email: invited, name: 'Ike', role: 'agent' },
    });
    await smtp.waitFor(invited);
    expect((await forgot(invited)).status).toBe(202);
    const marker = await t.createUser();
    expect((await forgot(marker.email)).status).toBe(202);
    await smtp.waitFor(marker.email);
    expect(smtp.to(invited).map((email) => email.subject)).toEqual(['Admin invited you to Team Inbox']);
    expect(created.body.status).toBe('invited');
  });

  it('ends an earlier unused link when a new one is asked for', async () => {
    const user = await t.createUser();
    const first = await resetLink(user.email);
    const second = await resetLink(user.email, 2);
    expect((await reset(first.token, 'from-the-first-link-1')).status).toBe(400);
    expect((await reset(second.token, 'from-the-second-link-1')).status).toBe(204);
  });

  it('ends a link once the password changed some other way (PATCH /me)', async () => {
    const user = await t.createUser();
    const { token } = await resetLink(user.email);
    const changed = await t.request('PATCH', '/api/v1/me', {
      token: user.token,
      body: { password: 'changed-meanwhile-1', current_password: user.password },
    });
    expect(changed.status).toBe(200);
    expect((await reset(token, 'from-the-old-link-1')).status).toBe(400);
    expect(await t.login(user.email, 'changed-meanwhile-1')).toEqual(expect.any(String));
  });

  it('resets the password of an address on a host without a dot, as the first admin admin@localhost has', async () => {
    const user = await t.createUser({ email: 'dee@localhost' });
    const { token } = await resetLink('dee@localhost');
    expect((await reset(token, 'brand-new-password-2')).status).toBe(204);
    expect(await t.login(user.email, 'brand-new-password-2')).toEqual(expect.any(String));
  });

  it('refuses a malformed body with 400 naming the field in a sentence, and a short password', async () => {
    const bad = await t.request('POST', '/api/v1/auth/forgot-password', { body: { email: 'not-an-address' } });
    expect(bad.status).toBe(400);
    expect(bad.body?.error).toBe('email must be an e-mail address, like ana@example.com');
    const short = await reset('whatever', 'short');
    expect(short.status).toBe(400);
    expect(short.body?.error).toMatch(/password/);
  });
});

describe('password reset limits', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({
      env: { ...emailSettings(smtp), PASSWORD_RESET_RATE_LIMIT_MAX_REQUESTS: '2', LOGIN_RATE_LIMIT_MAX_REQUESTS: '4' },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const forgot = (email: string, ip: string) => t.request('POST', '/api/v1/auth/forgot-password', { body: { email }, ip });

  it('limits one address, known or not, whatever the client IP, and leaves other addresses alone', async () => {
    for (const address of [nobody(), `${randomBytes(4).toString('hex')}@example.com`]) {
      expect((await forgot(address, '10.0.0.1')).status).toBe(202);
      expect((await forgot(address.toUpperCase(), '10.0.0.2')).status).toBe(202);
      const limited = await forgot(address, '10.0.0.3');
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ error: expect.any(String) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect((await forgot(nobody(), '10.0.0.4')).status).toBe(202);
  });

  it('limits one client IP across addresses, with the login attempts', async () => {
    for (let i = 0; i < 4; i += 1) expect((await forgot(nobody(), '10.0.1.1')).status).toBe(202);
    expect((await forgot(nobody(), '10.0.1.1')).status).toBe(429);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: 'a@b.example', password: 'x' }, ip: '10.0.1.1' })).status).toBe(
      429,
    );
    expect((await forgot(nobody(), '10.0.1.2')).status).toBe(202);
  });
});

describeWithPostgresAndRedis('password reset across instances (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let smtp: SmtpTestServer;
  let a: TestApp;
  let b: TestApp;
  let close: () => Promise<void>;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    ({ a, b, close } = await startTwoInstances(emailSettings(smtp)));
  });
  afterAll(async () => {
    await close();
    await smtp.close();
  });

  it("revokes the user's tokens on every instance at once", async () => {
    const user = await a.createUser();
    // Both instances have the user cached as valid.
    expect((await a.request('GET', '/api/v1/me', { token: user.token })).status).toBe(200);
    expect((await b.request('GET', '/api/v1/me', { token: user.token })).status).toBe(200);
    expect((await a.request('POST', '/api/v1/auth/forgot-password', { body: { email: user.email } })).status).toBe(202);
    const { token } = linkIn((await smtp.waitFor(user.email))[0], APP_URL, '/reset-password');
    expect((await a.request('POST', '/api/v1/auth/reset-password', { body: { token, password: 'reset-everywhere-1' } })).status).toBe(204);
    await eventually(async () => expect((await b.request('GET', '/api/v1/me', { token: user.token })).status).toBe(401));
    expect((await a.request('GET', '/api/v1/me', { token: user.token })).status).toBe(401);
    expect(await b.login(user.email, 'reset-everywhere-1')).toEqual(expect.any(String));
  });
});

import { randomBytes } from 'node:crypto';
import { eventually } from './support/channel';
import { linkIn, SmtpTestServer } from './support/mail-servers';
import { startTestApp, TestApp } from './support/test-app';

const APP_URL = 'https://inbox.example.test/app';
const address = () => `invitee-${randomBytes(4).toString('hex')}@example.com`;
const uuidOf = (publicId: string) => publicId.replace(/^user_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

describe('invitations through a real SMTP server', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({
      env: { EMAIL_PROVIDER: 'smtp', EMAIL_SMTP_URL: smtp.url(), EMAIL_FROM: 'team@example.test', APP_URL, EMAIL_RETRY_SCHEDULE: '100ms' },
    });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const invite = (email: string, fields: Record<string, unknown> = {}) =>
    t.request('POST', '/api/v1/users', { token: admin, body: { email, name: 'Ivy Invited', role: 'agent', ...fields } });
  const accept = (token: string, password = 'chosen-password-1', name?: string) =>
    t.request('POST', '/api/v1/auth/accept-invite', { body: { token, password, ...(name ? { name } : {}) } });

  it('creates an invited user without a password, answers no link while a provider delivers it, and e-mails one to APP_URL', async () => {
    const email = address();
    const created = await invite(email);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^user_[0-9a-f]{32}$/),
      email,
      name: 'Ivy Invited',
      role: 'agent',
      beta_access: false,
      status: 'invited',
      two_factor_enabled: false,
      locked_until: null,
      availability: 'offline',
      created_at: expect.any(String),
    });
    const [received] = await smtp.waitFor(email);
    expect(received).toMatchObject({ from: 'team@example.test', subject: 'Admin invited you to Team Inbox' });
    expect(received.text).toContain('within 72 hours');
    const link = linkIn(received, APP_URL, '/accept-invite');
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(received.html).toContain(`href="${link.url}"`);
    // Authenticated with the credentials of EMAIL_SMTP_URL.
    expect(smtp.logins.at(-1)).toEqual({ username: 'inbox', password: 'smtp-test-password-4d1' });
  });

  it('stores only a hash of the link, never the token', async () => {
    const email = address();
    const created = await invite(email);
    const { token } = linkIn((await smtp.waitFor(email))[0], APP_URL, '/accept-invite');
    const rows = await t.sql<{ token_hash: string }>('SELECT token_hash FROM account_tokens WHERE user_id = $1', [uuidOf(created.body.id)]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await t.sql('SELECT * FROM account_tokens'))).not.toContain(token);
    // The e-mail's content is dropped once sent.
    await eventually(async () =>
      expect(await t.sql('SELECT content, status FROM outbound_emails WHERE user_id = $1', [uuidOf(created.body.id)])).toEqual([
        { content: null, status: 'sent' },
      ]),
    );
  });

  it('lets the invited agent accept through the link read from the e-mail, then log in; the link works once', async () => {
    const email = address();
    const created = await invite(email);
    const { token } = linkIn((await smtp.waitFor(email))[0], APP_URL, '/accept-invite');

    const refused = await t.request('POST', '/api/v1/auth/login', { body: { email, password: 'chosen-password-1' } });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'Email or password is incorrect' });

    const accepted = await accept(token, 'chosen-password-1', 'Ivy Accepted');
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      token: expect.any(String),
      expires_at: expect.stringMatching(/Z$/),
      user: expect.objectContaining({ id: created.body.id, email, name: 'Ivy Accepted', status: 'active' }),
    });
    const me = await t.request('GET', '/api/v1/me', { token: accepted.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: created.body.id, status: 'active', email_notifications: 'immediate' });
    expect(await t.login(email, 'chosen-password-1')).toEqual(expect.any(String));

    const again = await accept(token, 'another-password-2');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: 'token is invalid, expired or already used' });
    expect(await t.login(email, 'chosen-password-1')).toEqual(expect.any(String));
  });

  it('refuses an unknown token and a malformed body with 400', async () => {
    expect((await accept('not-a-real-token')).status).toBe(400);
    const short = await t.request('POST', '/api/v1/auth/accept-invite', { body: { token: 'x', password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error).toMatch(/password/);
  });

  it('refuses a link past its 72 hours, and accepts the same link while within them', async () => {
    const email = address();
    const created = await invite(email);
    const { token } = linkIn((await smtp.waitFor(email))[0], APP_URL, '/accept-invite');
    await t.sql(`UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [uuidOf(created.body.id)]);
    expect((await accept(token)).status).toBe(400);
    await t.sql(`UPDATE account_tokens SET expires_at = now() + interval '1 minute' WHERE user_id = $1`, [uuidOf(created.body.id)]);
    expect((await accept(token)).status).toBe(200);
  });

  it('sends a fresh invitation on POST /users/:id/invite; the earlier link stops working', async () => {
    const email = address();
    const created = await invite(email);
    const first = linkIn((await smtp.waitFor(email))[0], APP_URL, '/accept-invite');
    const again = await t.request('POST', `/api/v1/users/${created.body.id}/invite`, { token: admin });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
    const second = linkIn((await smtp.waitFor(email, 2))[1], APP_URL, '/accept-invite');
    expect(second.token).not.toBe(first.token);
    expect((await accept(first.token)).status).toBe(400);
    expect((await accept(second.token)).status).toBe(200);
    // Accepted: no more invitations.
    const late = await t.request('POST', `/api/v1/users/${created.body.id}/invite`, { token: admin });
    expect(late.status).toBe(422);
    expect(late.body).toEqual({ error: 'The user has accepted their invitation already' });
  });

  it('answers 404 for an unknown user and 403 for an agent', async () => {
    expect((await t.request('POST', '/api/v1/users/user_00000000000000000000000000000000/invite', { token: admin })).status).toBe(404);
    const agent = await t.createUser();
    expect(
      (await t.request('POST', '/api/v1/users', { token: agent.token, body: { email: address(), name: 'X', role: 'agent' } })).status,
    ).toBe(403);
  });

  it('ends the link sent to an address the admin then corrects', async () => {
    const email = address();
    const created = await invite(email);
    const { token } = linkIn((await smtp.waitFor(email))[0], APP_URL, '/accept-invite');
    const corrected = address();
    expect((await t.request('PATCH', `/api/v1/users/${created.body.id}`, { token: admin, body: { email: corrected } })).status).toBe(200);
    expect((await accept(token)).status).toBe(400);
    expect((await t.request('POST', `/api/v1/users/${created.body.id}/invite`, { token: admin })).status).toBe(200);
    const fresh = linkIn((await smtp.waitFor(corrected))[0], APP_URL, '/accept-invite');
    expect((await accept(fresh.token)).status).toBe(200);
  });

  it('lets an admin who sets an invited user’s password activate them, which ends the invitation', async () => {
    const email = address();
    const created = await invite(email);
    const { token } = linkIn((await smtp.waitFor(email))[0], APP_URL, '/accept-invite');
    const set = await t.request('PATCH', `/api/v1/users/${created.body.id}`, { token: admin, body: { password: 'set-by-admin-1' } });
    expect(set.status).toBe(200);
    expect(set.body.status).toBe('active');
    expect(await t.login(email, 'set-by-admin-1')).toEqual(expect.any(String));
    expect((await accept(token)).status).toBe(400);
  });

  it('still creates active users with a password, who log in at once and get no e-mail', async () => {
    const email = address();
    const created = await invite(email, { password: 'right-away-123' });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('active');
    expect(await t.login(email, 'right-away-123')).toEqual(expect.any(String));
    const rows = await t.sql('SELECT id FROM outbound_emails WHERE user_id = $1', [uuidOf(created.body.id)]);
    expect(rows).toEqual([]);
  });
});

describe('invitations without an e-mail provider', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { APP_URL } });
  });
  afterAll(() => t.close());

  it('answers invite_url for the admin to pass on, which works once; nothing is written to the log but that it was not sent', async () => {
    const email = address();
    const created = await t.request('POST', '/api/v1/users', { token: await t.adminToken(), body: { email, name: 'Nia', role: 'agent' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      email,
      status: 'invited',
      two_factor_enabled: false,
      locked_until: null,
      invite_url: expect.stringMatching(/^https:\/\/inbox\.example\.test\/app\/accept-invite\?token=/),
    });
    const token = new URL(created.body.invite_url as string).searchParams.get('token')!;
    const accepted = await t.request('POST', '/api/v1/auth/accept-invite', { body: { token, password: 'passed-on-123' } });
    expect(accepted.status).toBe(200);
    expect((await t.request('POST', '/api/v1/auth/accept-invite', { body: { token, password: 'passed-on-123' } })).status).toBe(400);

    // The e-mail job ran (written off: no provider) and the log holds neither the link nor the address.
    await waitForLog(
      t,
      (line) => String(line.msg).startsWith('E-mail ') && String(line.msg).endsWith('not sent: EMAIL_PROVIDER is not set'),
    );
    const logs = JSON.stringify(t.logs);
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(email);
  });
});

async function waitForLog(t: TestApp, match: (line: Record<string, unknown>) => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!t.logs.some(match)) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the log line');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

import { randomBytes, scryptSync } from 'node:crypto';
import { totpCodeOf } from '../src/two-factor/totp';
import { AuditLogService } from '../src/audit/audit-log.service';
import { SmtpTestServer } from './support/mail-servers';
import { clockAhead } from './support/clock';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

/** Two-factor login, per-account lockout, API tokens, per-session logout and the audit log (contract part three, "Security and administration"). */
describe('security and administration', () => {
  let t: TestApp;
  let smtp: SmtpTestServer;
  let admin: string;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({
      env: {
        EMAIL_PROVIDER: 'smtp',
        EMAIL_SMTP_URL: smtp.url(),
        EMAIL_FROM: 'team@example.test',
        APP_URL: 'https://inbox.example.test',
        EMAIL_RETRY_SCHEDULE: '100ms',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      },
    });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  type AuditEntry = {
    id: string;
    at: string;
    actor: { id: string | null; email: string } | null;
    ip: string | null;
    action: string;
    target: string | null;
    details: Record<string, unknown>;
  };
  async function audit(query = ''): Promise<AuditEntry[]> {
    const answer = await t.request('GET', `/api/v1/audit-log?limit=100${query}`, { token: admin });
    expect(answer.status).toBe(200);
    return (answer.body as { data: AuditEntry[] }).data;
  }

  /** Enrols `user` in two-factor login; answers the secret and the recovery codes. */
  async function enrol(user: { token: string; password: string }): Promise<{ secret: string; recoveryCodes: string[] }> {
    const begun = await t.request('POST', '/api/v1/me/2fa', { token: user.token, body: { password: user.password } });
    expect(begun.status).toBe(200);
    const { secret } = begun.body as { secret: string };
    const enabled = await t.request('POST', '/api/v1/me/2fa/enable', { token: user.token, body: { code: totpCodeOf(secret) } });
    expect(enabled.status).toBe(200);
    // Turning it on revoked every earlier token: the answer carries the new session.
    user.token = (enabled.body as { token: string }).token;
    return { secret, recoveryCodes: (enabled.body as { recovery_codes: string[] }).recovery_codes };
  }

  describe('two-factor login', () => {
    it('enrols with the password and a code of the secret, and answers ten single-use recovery codes once', async () => {
      const user = await t.createUser();
      const wrongPassword = await t.request('POST', '/api/v1/me/2fa', { token: user.token, body: { password: 'not-the-password' } });
      expect(wrongPassword).toMatchObject({ status: 422, body: { error: 'password is incorrect' } });
      const begun = await t.request('POST', '/api/v1/me/2fa', { token: user.token, body: { password: user.password } });
      expect(begun.status).toBe(200);
      const { secret, otpauth_url } = begun.body as { secret: string; otpauth_url: string };
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/Team%20Inbox:/);
      expect(new URL(otpauth_url).searchParams.get('secret')).toBe(secret);

      const wrongCode = await t.request('POST', '/api/v1/me/2fa/enable', { token: user.token, body: { code: '000000' } });
      expect(wrongCode).toMatchObject({ status: 422, body: { error: 'code is incorrect, expired or used already' } });
      expect((await t.request('GET', '/api/v1/me', { token: user.token })).body).toMatchObject({ two_factor_enabled: false });

      const enabled = await t.request('POST', '/api/v1/me/2fa/enable', { token: user.token, body: { code: totpCodeOf(secret) } });
      expect(enabled.status).toBe(200);
      const codes = (enabled.body as { recovery_codes: string[] }).recovery_codes;
      // Every token from before the second factor stops working; the answer carries the new one.
      expect((await t.request('GET', '/api/v1/me', { token: user.token })).status).toBe(401);
      user.token = (enabled.body as { token: string }).token;
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);
      for (const code of codes) expect(code).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
      expect((await t.request('GET', '/api/v1/me', { token: user.token })).body).toMatchObject({ two_factor_enabled: true });
      // Stored as hashes only.
      const stored = await t.sql<{ code_hash: string }>('SELECT code_hash FROM recovery_codes');
      for (const code of codes) expect(stored.map((row) => row.code_hash)).not.toContain(code);
      const again = await t.request('POST', '/api/v1/me/2fa', { token: user.token, body: { password: user.password } });
      expect(again.status).toBe(409);
      expect((await audit('&action=2fa.enabled')).map((entry) => entry.target)).toContain(user.id);
    });

    it('asks a code after the password, takes it once, and takes each recovery code once', async () => {
      const user = await t.createUser();
      const { secret, recoveryCodes } = await enrol(user);
      const first = await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } });
      expect(first.status).toBe(200);
      expect(Object.keys(first.body as object).sort()).toEqual(['mfa_required', 'mfa_token']);
      const { mfa_token } = first.body as { mfa_token: string };
      expect((await t.request('GET', '/api/v1/me', { token: mfa_token })).status).toBe(401);

      // The enrolment used the current step's code: the next step's is the first one a login takes.
      const code = totpCodeOf(secret, Date.now() + 30_000);
      const second = await t.request('POST', '/api/v1/auth/login/mfa', { body: { mfa_token, code } });
      expect(second.status).toBe(200);
      const token = (second.body as { token: string }).token;
      expect((await t.request('GET', '/api/v1/me', { token })).body).toMatchObject({ id: user.id });
      const replayed = await t.request('POST', '/api/v1/auth/login/mfa', { body: { mfa_token, code } });
      expect(replayed).toMatchObject({ status: 401, body: { error: 'code is incorrect, expired or used already' } });

      const recovery = recoveryCodes[3].toLowerCase().replace('-', ' ');
      expect((await t.request('POST', '/api/v1/auth/login/mfa', { body: { mfa_token, code: recovery } })).status).toBe(200);
      expect((await t.request('POST', '/api/v1/auth/login/mfa', { body: { mfa_token, code: recovery } })).status).toBe(401);
      const entries = await audit(`&actor=${user.id}&action=login.succeeded`);
      // The password alone logged them in before they enrolled.
      expect(entries.map((entry) => entry.details.method).sort()).toEqual(['password', 'recovery_code', 'totp']);
      expect((await audit('&action=2fa.recovery_code_used')).find((entry) => entry.target === user.id)?.details).toEqual({
        recovery_codes_left: 9,
      });
    });

    it('refuses a made-up or foreign mfa_token', async () => {
      const answer = await t.request('POST', '/api/v1/auth/login/mfa', { body: { mfa_token: admin, code: '123456' } });
      expect(answer).toMatchObject({ status: 401, body: { error: 'mfa_token is invalid or has expired: log in again' } });
    });

    it("turns off with a recovery code, after which the password alone logs in; an admin can turn off anyone's", async () => {
      const user = await t.createUser();
      const { recoveryCodes } = await enrol(user);
      expect((await t.request('DELETE', '/api/v1/me/2fa', { token: user.token, body: { code: '111111' } })).status).toBe(422);
      expect((await t.request('DELETE', '/api/v1/me/2fa', { token: user.token, body: { code: recoveryCodes[0] } })).status).toBe(204);
      expect((await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } })).body).toMatchObject({
        token: expect.any(String),
      });

      const other = await t.createUser();
      await enrol(other);
      const agent = await t.createUser();
      expect((await t.request('DELETE', `/api/v1/users/${other.id}/2fa`, { token: agent.token })).status).toBe(403);
      expect((await t.request('DELETE', `/api/v1/users/${other.id}/2fa`, { token: admin })).status).toBe(204);
      expect((await t.request('DELETE', `/api/v1/users/${other.id}/2fa`, { token: admin })).status).toBe(422);
      expect((await t.request('GET', `/api/v1/users/${other.id}`, { token: admin })).body).toMatchObject({ two_factor_enabled: false });
      expect((await audit('&action=2fa.reset')).map((entry) => entry.target)).toEqual([other.id]);
    });
  });

  describe('per-account lockout', () => {
    it('locks password login after 10 failures in 15 minutes from any addresses, e-mails the owner, and an admin unlocks', async () => {
      const user = await t.createUser();
      const attempt = (password: string, n: number) =>
        t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password }, ip: `203.0.113.${n}` });
      for (let n = 1; n <= 9; n += 1) expect((await attempt('wrong-password', n)).status).toBe(401);
      expect((await attempt(user.password, 50)).status).toBe(200);
      // A success forgets the failures: ten more are needed.
      for (let n = 1; n <= 9; n += 1) expect((await attempt('wrong-password', n)).status).toBe(401);
      expect((await attempt('wrong-password', 10)).status).toBe(401);
      const locked = await attempt(user.password, 11);
      expect(locked.status).toBe(429);
      expect(locked.body).toEqual({
        error:
          'This account is locked after too many failed logins: try again after the time given in Retry-After, or ask an admin to unlock it',
      });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(900);

      const [email] = await smtp.waitFor(user.email);
      expect(email.subject).toBe('Your Team Inbox account was locked after failed sign-ins');
      expect(email.text).toContain('10 sign-ins');
      const users = (await t.request('GET', `/api/v1/users/${user.id}`, { token: admin })).body as { locked_until: string };
      expect(Date.parse(users.locked_until)).toBeGreaterThan(Date.now());
      expect((await audit('&action=login.locked')).find((entry) => entry.target === user.id)?.details).toMatchObject({ failures: 10 });

      const agent = await t.createUser();
      expect((await t.request('POST', `/api/v1/users/${user.id}/unlock`, { token: agent.token })).status).toBe(403);
      expect((await t.request('POST', `/api/v1/users/${user.id}/unlock`, { token: admin })).status).toBe(204);
      expect((await attempt(user.password, 12)).status).toBe(200);
      expect((await audit('&action=login.unlocked')).map((entry) => entry.target)).toContain(user.id);
    });

    it('counts wrong second-factor codes as failures of the account', async () => {
      const user = await t.createUser();
      await enrol(user);
      for (let n = 1; n <= 10; n += 1) {
        const first = await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } });
        const answer = await t.request('POST', '/api/v1/auth/login/mfa', {
          body: { mfa_token: (first.body as { mfa_token: string }).mfa_token, code: '000000' },
        });
        expect(answer.status).toBe(401);
      }
      expect((await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } })).status).toBe(429);
    });

    it('records failed logins of unknown addresses without locking anything', async () => {
      const answer = await t.request('POST', '/api/v1/auth/login', {
        body: { email: 'nobody-here@example.com', password: 'whatever-1' },
        ip: '198.51.100.7',
      });
      expect(answer.status).toBe(401);
      const entry = (await audit('&action=login.failed')).find((e) => e.ip === '198.51.100.7');
      // What was typed as the e-mail is not kept for an unknown account (a password pasted there would be).
      expect(entry).toMatchObject({ actor: null, target: null, details: { step: 'password', known_account: false } });
      expect(JSON.stringify(entry)).not.toContain('nobody-here');
    });
  });

  describe('password hashes', () => {
    it("makes a hash with yesterday's weaker parameters again at its owner's next login", async () => {
      const user = await t.createUser();
      const salt = randomBytes(16);
      const key = scryptSync(user.password.normalize('NFKC'), salt, 32, { N: 1024, r: 8, p: 1 });
      const old = `scrypt$1024$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
      await t.sql('UPDATE users SET password_hash = $1 WHERE email = $2', [old, user.email]);
      expect(await t.login(user.email, user.password)).toEqual(expect.any(String));
      const [{ password_hash }] = await t.sql<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = $1', [user.email]);
      expect(password_hash).toMatch(/^scrypt\$1024\$8\$3\$/);
      expect(await t.login(user.email, user.password)).toEqual(expect.any(String));
    });
  });

  describe('API tokens', () => {
    it('shows the secret once, stores a hash, and acts as its owner', async () => {
      const agent = await t.createUser();
      const created = await t.request('POST', '/api/v1/api-tokens', { token: agent.token, body: { name: 'CRM sync' } });
      expect(created.status).toBe(201);
      const body = created.body as { id: string; token: string; name: string; user_id: string; expires_at: null; last_used_at: null };
      expect(body).toMatchObject({ name: 'CRM sync', user_id: agent.id, expires_at: null, last_used_at: null });
      expect(body.id).toMatch(/^tok_[0-9a-f]{32}$/);
      expect(body.token).toMatch(/^tinbox_[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(await t.sql('SELECT * FROM api_tokens'))).not.toContain(body.token);

      const me = await t.request('GET', '/api/v1/me', { token: body.token });
      expect(me.body).toMatchObject({ id: agent.id, role: 'agent' });
      expect((await t.request('GET', '/api/v1/audit-log', { token: body.token })).status).toBe(403);
      const listed = (await t.request('GET', '/api/v1/api-tokens', { token: agent.token })).body as { data: Record<string, unknown>[] };
      expect(listed.data).toHaveLength(1);
      expect(listed.data[0]).not.toHaveProperty('token');
      expect(listed.data[0].last_used_at).toEqual(expect.any(String));
    });

    it("keeps API tokens off the owner's credentials: no new tokens, password, second factor or logout with one", async () => {
      const agent = await t.createUser();
      const { token } = (await t.request('POST', '/api/v1/api-tokens', { token: agent.token, body: { name: 'bot' } })).body as {
        token: string;
      };
      for (const [method, url, body] of [
        ['POST', '/api/v1/api-tokens', { name: 'more' }],
        ['PATCH', '/api/v1/me', { password: 'new-password-123', current_password: agent.password }],
        ['POST', '/api/v1/me/2fa', { password: agent.password }],
        ['POST', '/api/v1/auth/logout', undefined],
      ] as const) {
        const answer = await t.request(method, url, { token, body });
        expect([method, url, answer.status]).toEqual([method, url, 403]);
      }
      expect((await t.request('GET', '/api/v1/conversations', { token })).status).toBe(200);
    });

    it('records each new address a token is used from in the audit log, once', async () => {
      const agent = await t.createUser();
      const created = (await t.request('POST', '/api/v1/api-tokens', { token: agent.token, body: { name: 'addresses' } })).body as {
        id: string;
        token: string;
      };
      for (const ip of ['192.0.2.1', '192.0.2.1', '192.0.2.2', '192.0.2.1'])
        expect((await t.request('GET', '/api/v1/me', { token: created.token, ip })).status).toBe(200);
      const entries = (await audit('&action=api_token.used_from_new_address')).filter((entry) => entry.target === created.id);
      expect(entries.map((entry) => entry.details.ip).sort()).toEqual(['192.0.2.1', '192.0.2.2']);
      expect(entries[0].actor).toEqual({ id: agent.id, email: agent.email });
    });

    it("stops working once revoked; an admin lists and revokes anyone's, an agent only their own", async () => {
      const agent = await t.createUser();
      const other = await t.createUser();
      const created = (await t.request('POST', '/api/v1/api-tokens', { token: agent.token, body: { name: 'to revoke' } })).body as {
        id: string;
        token: string;
      };
      expect((await t.request('DELETE', `/api/v1/api-tokens/${created.id}`, { token: other.token })).status).toBe(404);
      const all = (await t.request('GET', '/api/v1/api-tokens?limit=100', { token: admin })).body as { data: { id: string }[] };
      expect(all.data.map((row) => row.id)).toContain(created.id);
      const others = (await t.request('GET', '/api/v1/api-tokens', { token: other.token })).body as { data: unknown[] };
      expect(others.data).toEqual([]);
      expect((await t.request('DELETE', `/api/v1/api-tokens/${created.id}`, { token: admin })).status).toBe(204);
      const refused = await t.request('GET', '/api/v1/me', { token: created.token });
      expect(refused).toMatchObject({ status: 401, body: { error: 'API token is invalid, expired or revoked' } });
      expect((await audit('&action=api_token.revoked')).map((entry) => entry.target)).toContain(created.id);
    });

    it('refuses an expiry in the past, and stops working at its expiry', async () => {
      const agent = await t.createUser();
      const past = await t.request('POST', '/api/v1/api-tokens', {
        token: agent.token,
        body: { name: 'old', expires_at: '2020-01-01T00:00:00Z' },
      });
      expect(past).toMatchObject({ status: 400, body: { error: 'expires_at must be in the future' } });
      // An hour ahead, so the first request is in time however slow the engine; the clock is then moved past it.
      const expiresAt = Date.now() + 3_600_000;
      const created = (
        await t.request('POST', '/api/v1/api-tokens', {
          token: agent.token,
          body: { name: 'short', expires_at: new Date(expiresAt).toISOString() },
        })
      ).body as { id: string; token: string };
      expect((await t.request('GET', '/api/v1/me', { token: created.token })).status).toBe(200);
      const clock = clockAhead(2 * 3_600_000);
      try {
        expect((await t.request('GET', '/api/v1/me', { token: created.token })).status).toBe(401);
      } finally {
        clock.restore();
      }
    });
  });

  describe('the audit log', () => {
    it('records user, role and webhook changes with the acting admin and address, newest first, filtered by actor, action and time', async () => {
      const from = new Date().toISOString();
      const created = await t.request('POST', '/api/v1/users', {
        token: admin,
        body: { email: `audited-${Date.now()}@example.com`, password: 'a-long-password-1', name: 'Audited', role: 'agent' },
        ip: '192.0.2.77',
      });
      const id = (created.body as { id: string }).id;
      expect((await t.request('PATCH', `/api/v1/users/${id}`, { token: admin, body: { role: 'admin' } })).status).toBe(200);
      expect((await t.request('DELETE', `/api/v1/users/${id}`, { token: admin })).status).toBe(204);
      const entries = (await audit(`&from=${encodeURIComponent(from)}`)).filter((entry) => entry.target === id);
      expect(entries.map((entry) => entry.action)).toEqual(['user.deleted', 'user.role_changed', 'user.created']);
      const adminId = ((await t.request('GET', '/api/v1/me', { token: admin })).body as { id: string }).id;
      expect(entries[2]).toMatchObject({ actor: { id: adminId, email: ADMIN.email }, ip: '192.0.2.77', details: { role: 'agent' } });
      expect(entries[1].details).toEqual({ changed: ['role'], role: { from: 'agent', to: 'admin' } });
      expect(entries[0].id).toMatch(/^aud_[0-9a-f]{32}$/);

      const webhook = await t.request('POST', '/api/v1/webhooks', {
        token: admin,
        body: { url: 'http://127.0.0.1:9/in', events: ['message.received'], secret: 'a-webhook-secret-long-enough' },
      });
      expect(webhook.status).toBe(201);
      expect((await audit('&action=webhook.created')).map((entry) => entry.target)).toContain((webhook.body as { id: string }).id);
      expect(await audit(`&actor=${adminId}&action=user.deleted&to=${encodeURIComponent(from)}`)).toEqual([]);
    });

    it("records contact exports, merges and deletions, and never the contact's phone", async () => {
      const a = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: '+15550177001', name: 'Audited A' } });
      const b = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: '+15550177002', name: 'Audited B' } });
      const [aId, bId] = [(a.body as { id: string }).id, (b.body as { id: string }).id];
      expect((await t.request('GET', '/api/v1/contacts/export?q=Audited', { token: admin })).status).toBe(200);
      expect((await t.request('POST', `/api/v1/contacts/${aId}/merge`, { token: admin, body: { from: bId } })).status).toBe(200);
      expect((await t.request('DELETE', `/api/v1/contacts/${aId}`, { token: admin })).status).toBe(204);
      expect((await audit('&action=contacts.exported'))[0].details).toEqual({ searched: true, tag: null });
      expect((await audit('&action=contacts.merged'))[0]).toMatchObject({ target: aId, details: { from: bId } });
      const deleted = (await audit('&action=contact.deleted'))[0];
      expect(deleted.target).toBe(aId);
      expect(JSON.stringify(await audit())).not.toContain('15550177001');
    });

    it('writes nothing when the action fails, since the entry is in its transaction', async () => {
      const taken = await t.createUser();
      const other = await t.createUser();
      const before = (await audit('&action=user.updated')).length;
      expect((await t.request('PATCH', `/api/v1/users/${other.id}`, { token: admin, body: { email: taken.email } })).status).toBe(409);
      expect((await audit('&action=user.updated')).length).toBe(before);
      expect((await t.request('PATCH', `/api/v1/users/${other.id}`, { token: admin, body: { name: 'Renamed' } })).status).toBe(200);
      expect((await audit('&action=user.updated')).length).toBe(before + 1);
    });

    it('is for admins, read only, and refuses bad filters with 400', async () => {
      const agent = await t.createUser();
      expect((await t.request('GET', '/api/v1/audit-log', { token: agent.token })).status).toBe(403);
      expect((await t.request('POST', '/api/v1/audit-log', { token: admin, body: {} })).status).toBe(404);
      expect((await t.request('DELETE', '/api/v1/audit-log', { token: admin })).status).toBe(404);
      expect((await t.request('GET', '/api/v1/audit-log?action=nope', { token: admin })).status).toBe(400);
      expect((await t.request('GET', '/api/v1/audit-log?actor=bob', { token: admin })).body).toEqual({
        error: 'actor must be a user id (user_…)',
      });
      expect((await t.request('GET', '/api/v1/audit-log?from=yesterday', { token: admin })).status).toBe(400);
    });

    it('pages with a cursor', async () => {
      const first = await t.request('GET', '/api/v1/audit-log?limit=2', { token: admin });
      const page = first.body as { data: AuditEntry[]; next_cursor: string };
      expect(page.data).toHaveLength(2);
      const second = (await t.request('GET', `/api/v1/audit-log?limit=2&cursor=${page.next_cursor}`, { token: admin })).body as {
        data: AuditEntry[];
      };
      expect(second.data[0].at <= page.data[1].at).toBe(true);
      expect(second.data.map((entry) => entry.id)).not.toContain(page.data[1].id);
    });

    it('is pruned after AUDIT_RETENTION, not before', async () => {
      const count = async () => (await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM audit_log'))[0].n;
      const before = await count();
      expect(before).toBeGreaterThan(0);
      const audit = t.app.get(AuditLogService);
      expect(await audit.pruneNow(new Date(Date.now() + 364 * 86_400_000))).toBe(0);
      expect(await count()).toBe(before);
      expect(await audit.pruneNow(new Date(Date.now() + 366 * 86_400_000))).toBe(before);
      expect(await count()).toBe(0);
    });
  });
});

describe('REQUIRE_2FA', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { REQUIRE_2FA: 'admins' } });
  });
  afterAll(() => t.close());

  it('keeps an admin without a second factor to enrolment, and lets agents be', async () => {
    let admin = await t.adminToken();
    const refused = await t.request('GET', '/api/v1/conversations', { token: admin });
    expect(refused).toMatchObject({
      status: 403,
      body: { error: 'Two-factor login is required for your account: enrol first (POST /api/v1/me/2fa, then /api/v1/me/2fa/enable)' },
    });
    expect((await t.request('GET', '/api/v1/me', { token: admin })).body).toMatchObject({
      two_factor_required: true,
      two_factor_enabled: false,
    });
    const begun = await t.request('POST', '/api/v1/me/2fa', { token: admin, body: { password: ADMIN.password } });
    const { secret } = begun.body as { secret: string };
    const enabled = await t.request('POST', '/api/v1/me/2fa/enable', { token: admin, body: { code: totpCodeOf(secret) } });
    expect(enabled.status).toBe(200);
    // The token REQUIRE_2FA kept to enrolment does not become a full one; the new session is.
    expect((await t.request('GET', '/api/v1/conversations', { token: admin })).status).toBe(401);
    admin = (enabled.body as { token: string }).token;
    expect((await t.request('GET', '/api/v1/conversations', { token: admin })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: admin })).body).toMatchObject({
      two_factor_required: false,
      two_factor_enabled: true,
    });

    // An agent is not covered by `admins`.
    const agent = { email: `agent-${Date.now()}@example.com`, password: 'a-long-password-1' };
    const created = await t.request('POST', '/api/v1/users', { token: admin, body: { ...agent, name: 'Agent', role: 'agent' } });
    expect(created.status).toBe(201);
    const agentToken = await t.login(agent.email, agent.password);
    expect((await t.request('GET', '/api/v1/conversations', { token: agentToken })).status).toBe(200);
  });
});

describe('API tokens and the rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_MAX_REQUESTS: '6' } });
  });
  afterAll(() => t.close());

  it("counts an API token's requests as its owner's, with their session's in one budget", async () => {
    const user = await t.createUser();
    const created = await t.request('POST', '/api/v1/api-tokens', { token: user.token, body: { name: 'shared budget' } });
    expect(created.status).toBe(201);
    const { token } = created.body as { token: string };
    // The creation was the first request of the owner's budget of 6.
    for (let n = 2; n <= 4; n += 1) expect((await t.request('GET', '/api/v1/me', { token: user.token })).status).toBe(200);
    for (let n = 5; n <= 6; n += 1) expect((await t.request('GET', '/api/v1/me', { token })).status).toBe(200);
    const limited = await t.request('GET', '/api/v1/me', { token });
    expect(limited.status).toBe(429);
    expect((await t.request('GET', '/api/v1/me', { token: user.token })).status).toBe(429);
    // Another user's budget is untouched.
    expect((await t.request('GET', '/api/v1/me', { token: await t.adminToken() })).status).toBe(200);
  });
});

describe('what an admin API token cannot do', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("cannot take over accounts: no user made, password set, second factor reset or lockout lifted with it, and an admin's own factor needs a code", async () => {
    const admin = await t.adminToken();
    const victim = await t.createUser({ role: 'admin' });
    const { token } = (await t.request('POST', '/api/v1/api-tokens', { token: admin, body: { name: 'provisioning' } })).body as {
      token: string;
    };
    const refused = [
      await t.request('POST', '/api/v1/users', {
        token,
        body: { email: 'mallory@example.com', password: 'a-long-password-1', name: 'M', role: 'admin' },
      }),
      await t.request('PATCH', `/api/v1/users/${victim.id}`, { token, body: { password: 'taken-over-password' } }),
      await t.request('DELETE', `/api/v1/users/${victim.id}/2fa`, { token }),
      await t.request('POST', `/api/v1/users/${victim.id}/unlock`, { token }),
      await t.request('POST', `/api/v1/users/${victim.id}/invite`, { token }),
    ];
    expect(refused.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403]);
    // The same admin's session may; its own second factor is turned off with a code, not reset.
    expect((await t.request('PATCH', `/api/v1/users/${victim.id}`, { token: admin, body: { name: 'Still Victim' } })).status).toBe(200);
    const me = (await t.request('GET', '/api/v1/me', { token: admin })).body as { id: string };
    expect((await t.request('DELETE', `/api/v1/users/${me.id}/2fa`, { token: admin })).body).toEqual({
      error: 'Turn your own two-factor login off with a code: DELETE /api/v1/me/2fa',
    });
  });

  it('ends every API token of a user whose password is reset by e-mail (account recovery), and keeps them on a password change', async () => {
    const user = await t.createUser();
    const created = (await t.request('POST', '/api/v1/api-tokens', { token: user.token, body: { name: 'survives a change' } })).body as {
      token: string;
    };
    const changed = await t.request('PATCH', '/api/v1/me', {
      token: user.token,
      body: { password: 'a-changed-password-1', current_password: user.password },
    });
    expect(changed.status).toBe(200);
    expect((await t.request('GET', '/api/v1/me', { token: created.token })).status).toBe(200);
    // No e-mail provider here: the reset link is made as the service makes it, through its table.
    await t.sql(
      `INSERT INTO account_tokens (id, user_id, purpose, token_hash, sent_to, token_version, expires_at, created_at)
       SELECT gen_random_uuid(), id, 'password_reset', encode(sha256('reset-link-token-1'::bytea), 'hex'), email, token_version, now() + interval '1 hour', now()
         FROM users WHERE email = $1`,
      [user.email],
    );
    expect(
      (await t.request('POST', '/api/v1/auth/reset-password', { body: { token: 'reset-link-token-1', password: 'a-reset-password-1' } }))
        .status,
    ).toBe(204);
    expect((await t.request('GET', '/api/v1/me', { token: created.token })).status).toBe(401);
  });
});

describe('agents and the security of others', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("shows an agent no one's second factor or lockout but their own, and shows an admin everyone's", async () => {
    const agent = await t.createUser();
    const other = await t.createUser();
    const asAgent = (await t.request('GET', `/api/v1/users/${other.id}`, { token: agent.token })).body as unknown as Record<
      string,
      unknown
    >;
    expect(asAgent).not.toHaveProperty('two_factor_enabled');
    expect(asAgent).not.toHaveProperty('locked_until');
    const list = (await t.request('GET', '/api/v1/users?limit=100', { token: agent.token })).body as { data: Record<string, unknown>[] };
    expect(list.data.find((user) => user.id === agent.id)).toHaveProperty('two_factor_enabled', false);
    expect(list.data.find((user) => user.id === other.id)).not.toHaveProperty('two_factor_enabled');
    const asAdmin = (await t.request('GET', `/api/v1/users/${other.id}`, { token: await t.adminToken() })).body;
    expect(asAdmin).toMatchObject({ two_factor_enabled: false, locked_until: null });
  });
});

describe('bad input to the new endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each([
    ['POST', '/api/v1/me/2fa', 'password'],
    ['POST', '/api/v1/me/2fa/enable', 'code'],
    ['DELETE', '/api/v1/me/2fa', 'code'],
    ['POST', '/api/v1/api-tokens', 'name'],
    ['POST', '/api/v1/auth/login/mfa', 'mfa_token'],
    ['POST', '/api/v1/auth/login/mfa', 'code'],
  ] as const)('%s %s refuses %s as null, a number, empty or missing with 400 naming it', async (method, url, field) => {
    const user = await t.createUser();
    const valid: Record<string, unknown> = { password: user.password, code: '123456', name: 'A token', mfa_token: 'x.y.z' };
    const fields = url === '/api/v1/auth/login/mfa' ? ['mfa_token', 'code'] : [field];
    for (const value of [null, 42, '', undefined]) {
      const body = Object.fromEntries(
        fields.map((name) => [name, name === field ? value : valid[name]]).filter(([, v]) => v !== undefined),
      );
      const answer = await t.request(method, url, { token: user.token, body });
      expect([value, answer.status]).toEqual([value, 400]);
      expect(Object.keys(answer.body as object)).toEqual(['error']);
      expect((answer.body as { error: string }).error).toContain(field);
    }
  });

  it('refuses a null or mistyped expires_at of an API token, and bad audit-log and logout queries, with 400', async () => {
    const user = await t.createUser();
    // A week date passed class-validator's ISO 8601 check and was no instant for `new Date`; a year
    // 9999 time with an offset is an instant of year 10000.
    for (const expires_at of [null, 42, '', 'tomorrow', '2099-W01', '9999-12-31T23:59:59-23:59']) {
      const answer = await t.request('POST', '/api/v1/api-tokens', { token: user.token, body: { name: 'x', expires_at } });
      expect([expires_at, answer.status]).toEqual([expires_at, 400]);
      expect((answer.body as { error: string }).error).toContain('expires_at');
    }
    const admin = await t.adminToken();
    for (const query of ['?from=', '?to=2026-13-01', '?action=', '?actor=', '?limit=0'])
      expect((await t.request('GET', `/api/v1/audit-log${query}` as '/api/v1/audit-log', { token: admin })).status).toBe(400);
    expect((await t.request('POST', '/api/v1/auth/logout?everywhere=yes' as '/api/v1/auth/logout', { token: user.token })).status).toBe(
      400,
    );
  });
});

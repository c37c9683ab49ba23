import { randomBytes } from 'node:crypto';
import { eventually } from './support/channel';
import { FakeEmailApi, linkIn, ProviderAnswer, ProviderRequest, SmtpTestServer } from './support/mail-servers';
import { startTestApp, TestApp } from './support/test-app';

const APP_URL = 'https://inbox.example.test';
const FROM = 'team@example.test';
const address = () => `recipient-${randomBytes(4).toString('hex')}@example.com`;

interface EmailRow {
  status: string;
  attempts: number;
  last_error: string | null;
  content: string | null;
  provider_message_id: string | null;
  next_attempt_at: Date | null;
}

/** The outbound e-mail to an address (one per test). */
async function emailTo(t: TestApp, to: string): Promise<EmailRow> {
  const rows = await t.sql<EmailRow>(
    'SELECT status, attempts, last_error, content, provider_message_id, next_attempt_at FROM outbound_emails WHERE to_address = $1',
    [to],
  );
  expect(rows).toHaveLength(1);
  return rows[0];
}

async function invite(t: TestApp, email: string): Promise<void> {
  const answer = await t.request('POST', '/api/v1/users', { token: await t.adminToken(), body: { email, name: 'Pat', role: 'agent' } });
  expect(answer.status).toBe(201);
  expect(answer.body.invite_url).toBeUndefined();
}

describe.each([
  {
    provider: 'postmark',
    /** What the provider's API must have received for an invitation to `to`. */
    expectRequest(request: ProviderRequest, to: string, key: string) {
      expect(request.path).toBe('/email');
      expect(request.headers).toMatchObject({
        'x-postmark-server-token': key,
        accept: 'application/json',
        'content-type': 'application/json',
      });
      expect(request.body).toEqual({
        From: FROM,
        To: to,
        Subject: 'Admin invited you to Team Inbox',
        TextBody: expect.stringContaining(`${APP_URL}/accept-invite?token=`),
        HtmlBody: expect.stringContaining(`href="${APP_URL}/accept-invite?token=`),
        MessageStream: 'outbound',
      });
    },
    refusal: { status: 422, body: { ErrorCode: 406, Message: 'You tried to send to recipient(s) that have been marked as inactive.' } },
    refusalReason: 'Postmark answered 422: (#406) You tried to send to recipient(s) that have been marked as inactive.',
    transient: [{ status: 500, body: { ErrorCode: 0, Message: 'Internal server error' } }] as ProviderAnswer[],
  },
  {
    provider: 'sendgrid',
    expectRequest(request: ProviderRequest, to: string, key: string) {
      expect(request.path).toBe('/v3/mail/send');
      expect(request.headers).toMatchObject({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
      expect(request.body).toEqual({
        personalizations: [{ to: [{ email: to }] }],
        from: { email: FROM },
        subject: 'Admin invited you to Team Inbox',
        content: [
          { type: 'text/plain', value: expect.stringContaining(`${APP_URL}/accept-invite?token=`) },
          { type: 'text/html', value: expect.stringContaining(`href="${APP_URL}/accept-invite?token=`) },
        ],
      });
    },
    refusal: {
      status: 400,
      body: { errors: [{ message: 'The from address does not match a verified Sender Identity.', field: 'from', help: null }] },
    },
    refusalReason: 'SendGrid answered 400: from: The from address does not match a verified Sender Identity.',
    transient: [{ status: 503, body: { errors: [{ message: 'Service unavailable', field: null, help: null }] } }] as ProviderAnswer[],
  },
  {
    provider: 'resend',
    expectRequest(request: ProviderRequest, to: string, key: string) {
      expect(request.path).toBe('/emails');
      expect(request.headers).toMatchObject({
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': expect.stringMatching(/^team-inbox\/[0-9a-f-]{36}$/),
      });
      expect(request.body).toEqual({
        from: FROM,
        to: [to],
        subject: 'Admin invited you to Team Inbox',
        text: expect.stringContaining(`${APP_URL}/accept-invite?token=`),
        html: expect.stringContaining(`href="${APP_URL}/accept-invite?token=`),
      });
    },
    refusal: { status: 403, body: { statusCode: 403, message: 'The example.test domain is not verified.', name: 'validation_error' } },
    refusalReason: 'Resend answered 403: validation_error: The example.test domain is not verified.',
    // A 409 for the same Idempotency-Key while the first request is in progress means "later".
    transient: [
      { status: 502, body: { statusCode: 502, message: 'Bad gateway', name: 'application_error' } },
      {
        status: 409,
        body: {
          statusCode: 409,
          message: 'Same idempotency key used while original request is still in progress',
          name: 'concurrent_idempotent_requests',
        },
      },
    ] as ProviderAnswer[],
  },
])('e-mail through the $provider API', ({ provider, expectRequest, refusal, refusalReason, transient }) => {
  let api: FakeEmailApi;
  let t: TestApp;
  const requestsTo = (to: string) =>
    api.requests.filter((request) => JSON.stringify(request.body).includes(to) && request.provider === provider);

  beforeAll(async () => {
    api = await FakeEmailApi.start();
    t = await startTestApp({
      env: {
        EMAIL_PROVIDER: provider,
        EMAIL_API_KEY: api.apiKey,
        EMAIL_API_BASE_URL: api.baseUrl,
        EMAIL_FROM: FROM,
        APP_URL,
        EMAIL_RETRY_SCHEDULE: '100ms,100ms,100ms',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  it('sends an invitation in the shape of the real API, and the link read back works', async () => {
    const to = address();
    await invite(t, to);
    const [received] = await api.waitFor(to);
    expect(received).toMatchObject({ via: provider, from: FROM, to });
    expectRequest(requestsTo(to)[0], to, api.apiKey);
    const { token } = linkIn(received, APP_URL, '/accept-invite');
    expect((await t.request('POST', '/api/v1/auth/accept-invite', { body: { token, password: 'via-provider-1' } })).status).toBe(200);
    await eventually(async () => expect(await emailTo(t, to)).toMatchObject({ status: 'sent', attempts: 1, content: null }));
  });

  it('retries transient failures with the same request each time (Resend: the same Idempotency-Key), and the e-mail goes out once', async () => {
    const to = address();
    api.failNext(...transient);
    await invite(t, to);
    await api.waitFor(to);
    await eventually(async () =>
      expect(await emailTo(t, to)).toMatchObject({ status: 'sent', attempts: transient.length + 1, last_error: null }),
    );
    const attempts = requestsTo(to);
    expect(attempts).toHaveLength(transient.length + 1);
    for (const attempt of attempts.slice(1)) {
      expect(attempt.body).toEqual(attempts[0].body);
      expect(attempt.headers['idempotency-key']).toBe(attempts[0].headers['idempotency-key']);
    }
    expect(api.to(to)).toHaveLength(1);
  });

  it("waits as long as a 429's Retry-After asks, keeping the pending e-mail's content sealed, then sends it", async () => {
    const to = address();
    api.failNext({ status: 429, headers: { 'retry-after': '3600' }, body: { message: 'Too many requests' } });
    await invite(t, to);
    const pending = await eventually(async () => {
      const row = await emailTo(t, to);
      expect(row).toMatchObject({ status: 'pending', attempts: 1, last_error: expect.stringContaining('answered 429') });
      return row;
    });
    expect(new Date(pending.next_attempt_at!).getTime() - Date.now()).toBeGreaterThan(3_000_000);
    expect(pending.content).toMatch(/^enc:v1:/);
    expect(pending.content).not.toContain('accept-invite');
    await t.sql(`UPDATE outbound_emails SET next_attempt_at = now() WHERE to_address = $1`, [to]);
    await api.waitFor(to);
    await eventually(async () => expect(await emailTo(t, to)).toMatchObject({ status: 'sent', attempts: 2 }));
  });

  it("fails on a refusal (a 4xx other than 429) with the provider's reason, without retrying", async () => {
    const refused = address();
    api.failNext(refusal);
    await invite(t, refused);
    await eventually(async () =>
      expect(await emailTo(t, refused)).toMatchObject({ status: 'failed', attempts: 1, last_error: refusalReason, content: null }),
    );
    // A later e-mail goes through: the refused one was not tried again meanwhile.
    const later = address();
    await invite(t, later);
    await api.waitFor(later);
    expect(requestsTo(refused)).toHaveLength(1);
    expect(api.to(refused)).toEqual([]);
  });

  it('fails after the last attempt of EMAIL_RETRY_SCHEDULE', async () => {
    const to = address();
    api.failNext(...Array.from({ length: 4 }, () => ({ status: 503, body: { message: 'Service unavailable' } })));
    await invite(t, to);
    await eventually(async () =>
      expect(await emailTo(t, to)).toMatchObject({ status: 'failed', attempts: 4, last_error: expect.stringContaining('answered 503') }),
    );
    expect(requestsTo(to)).toHaveLength(4);
  });

  it('never writes the API key or a link to the log', async () => {
    const logs = JSON.stringify(t.logs);
    expect(logs.length).toBeGreaterThan(1000);
    expect(logs).not.toContain(api.apiKey);
    expect(logs).not.toContain('accept-invite?token=');
  });
});

describe('e-mail through SMTP: failures', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({
      env: { EMAIL_PROVIDER: 'smtp', EMAIL_SMTP_URL: smtp.url(), EMAIL_FROM: FROM, APP_URL, EMAIL_RETRY_SCHEDULE: '100ms,100ms' },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('retries after a 4xx reply ("try later"), then delivers once', async () => {
    const to = address();
    smtp.failNext({ code: 451, message: 'Requested action aborted: local error in processing' });
    await invite(t, to);
    await smtp.waitFor(to);
    await eventually(async () =>
      expect(await emailTo(t, to)).toMatchObject({ status: 'sent', attempts: 2, provider_message_id: expect.any(String) }),
    );
    expect(smtp.to(to)).toHaveLength(1);
  });

  it('fails on a 5xx reply (refused), without retrying', async () => {
    const to = address();
    smtp.failNext({ code: 550, message: 'Mailbox unavailable' });
    await invite(t, to);
    await eventually(async () =>
      expect(await emailTo(t, to)).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_error: expect.stringMatching(/^The SMTP server answered 550: /),
      }),
    );
    const later = address();
    await invite(t, later);
    await smtp.waitFor(later);
    expect(smtp.to(to)).toEqual([]);
  });

  it('retries while the SMTP server cannot be reached', async () => {
    const down = await startTestApp({
      env: { EMAIL_PROVIDER: 'smtp', EMAIL_SMTP_URL: 'smtp://inbox:pw@127.0.0.1:9', EMAIL_FROM: FROM, APP_URL, EMAIL_RETRY_SCHEDULE: '1h' },
    });
    try {
      const to = address();
      await invite(down, to);
      await eventually(async () =>
        expect(await emailTo(down, to)).toMatchObject({
          status: 'pending',
          attempts: 1,
          last_error: expect.stringMatching(/^The SMTP server could not be reached: /),
        }),
      );
      expect(JSON.stringify(down.logs)).not.toContain('inbox:pw');
    } finally {
      await down.close();
    }
  });
});

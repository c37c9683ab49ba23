import { ConfigError, loadConfig } from '../../src/config/app-config';
import { parseDuration } from '../../src/config/duration';

const generated = () => 'generated-secret';
const KEY = Buffer.alloc(32, 9).toString('base64');
const APP_URL = 'https://inbox.example.com';
/** A production configuration that passes, for the tests of one more setting. */
const PRODUCTION = {
  NODE_ENV: 'production',
  APP_URL,
  SESSION_SECRET: 'x'.repeat(32),
  DATABASE_URL: 'postgres://db/x',
  ENCRYPTION_KEY: KEY,
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, generated);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('runs on the embedded default with nothing set', () => {
    const config = loadConfig({}, generated);
    expect(config).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      databaseUrl: null,
      dataDir: './data',
      redisUrl: null,
      rateLimitWindowMs: 900_000,
      rateLimitMaxRequests: 100,
      messagingApiBaseUrl: 'https://graph.facebook.com/v24.0',
      webhookRetryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      webhookTimeoutMs: 10_000,
      betaAccessOnly: false,
      webhookAllowPrivateUrls: false,
      sessionSecret: 'generated-secret',
      sessionSecretGenerated: true,
    });
  });

  it('reads the seed’s deployment settings', () => {
    const config = loadConfig(
      {
        NODE_ENV: 'production',
        PORT: '8080',
        APP_URL: 'https://inbox.example.com/',
        SESSION_SECRET: 'x'.repeat(32),
        ENCRYPTION_KEY: KEY,
        DATABASE_URL: 'postgresql://u@db:5432/inbox',
        DATABASE_POOL_MAX: '20',
        REDIS_URL: 'redis://cache:6379',
        RATE_LIMIT_WINDOW_MS: '60000',
        RATE_LIMIT_MAX_REQUESTS: '7',
        CORS_ORIGIN: 'https://a.example.com, https://b.example.com',
        BETA_ACCESS_ONLY: 'true',
        ADMIN_EMAIL: 'Boss@Example.com',
        ADMIN_PASSWORD: 'long-enough',
      },
      generated,
    );
    expect(config).toMatchObject({
      port: 8080,
      databasePoolMax: 20,
      redisUrl: 'redis://cache:6379',
      rateLimitMaxRequests: 7,
      corsOrigins: ['https://a.example.com', 'https://b.example.com'],
      betaAccessOnly: true,
      adminEmail: 'boss@example.com',
      appUrl: 'https://inbox.example.com',
      sessionSecretGenerated: false,
      isProduction: true,
    });
  });

  it.each([
    ['PORT', 'abc', /^PORT: expected an integer/],
    ['PORT', '70000', /^PORT: expected an integer from 0 to 65535/],
    ['DATABASE_URL', 'mysql://x', /^DATABASE_URL: expected a URL starting with postgres:\/\/ or postgresql:\/\//],
    ['REDIS_URL', 'localhost:6379', /^REDIS_URL: /],
    ['BETA_ACCESS_ONLY', 'yes', /^BETA_ACCESS_ONLY: expected true or false/],
    ['LOG_LEVEL', 'loud', /^LOG_LEVEL: expected one of/],
    ['NODE_ENV', 'staging', /^NODE_ENV: expected one of development, production, test/],
    ['WEBHOOK_RETRY_SCHEDULE', '5s,soon', /^WEBHOOK_RETRY_SCHEDULE: /],
    ['RATE_LIMIT_MAX_REQUESTS', '0', /^RATE_LIMIT_MAX_REQUESTS: /],
    ['EMAIL_FROM', 'nobody', /^EMAIL_FROM: /],
    ['AUTH_TOKEN_TTL', '12 hours', /^AUTH_TOKEN_TTL: /],
    ['EVENT_RETENTION', '30 days', /^EVENT_RETENTION: expected a duration/],
    ['EVENT_RETENTION', '59m', /^EVENT_RETENTION: must be at least 1h/],
    ['EVENT_RETENTION', '0d', /^EVENT_RETENTION: must be at least 1h/],
    ['MESSAGING_TEMPLATE_SYNC_INTERVAL', 'hourly', /^MESSAGING_TEMPLATE_SYNC_INTERVAL: expected a duration/],
    ['MESSAGING_TEMPLATE_SYNC_INTERVAL', '500ms', /^MESSAGING_TEMPLATE_SYNC_INTERVAL: must be at least 1s/],
    ['ENCRYPTION_KEY', Buffer.alloc(16).toString('base64'), /^ENCRYPTION_KEY: expected 32 bytes in base64/],
  ])('refuses %s=%s with a message naming the setting', (name, value, message) => {
    expect(problemsOf({ [name]: value })).toEqual([expect.stringMatching(message)]);
  });

  it('reports every problem at once', () => {
    expect(problemsOf({ PORT: 'x', LOG_LEVEL: 'y', DATABASE_POOL_MAX: '-1' })).toHaveLength(3);
  });

  it.each([
    ['a missing SESSION_SECRET', {}],
    ['a SESSION_SECRET under 32 characters', { SESSION_SECRET: 'short' }],
  ])('refuses %s in production', (_, env) => {
    expect(problemsOf({ NODE_ENV: 'production', APP_URL, DATABASE_URL: 'postgres://db/x', ENCRYPTION_KEY: KEY, ...env })).toEqual([
      expect.stringMatching(/^SESSION_SECRET: /),
    ]);
  });

  it('refuses TRUST_PROXY=true in production, and takes the proxy addresses and networks', () => {
    expect(problemsOf({ ...PRODUCTION, TRUST_PROXY: 'true' })).toEqual([
      "TRUST_PROXY: `true` believes every client's X-Forwarded-For: name the proxy's addresses or network instead",
    ]);
    expect(problemsOf({ ...PRODUCTION, TRUST_PROXY: '10.0.0.0/8, 172.29.0.2, fd00::/8' })).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: 'true' }, generated).trustProxy).toBe(true);
  });

  it('refuses a TRUST_PROXY entry that is neither an address nor a CIDR, naming it', () => {
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/8, proxy.internal' })).toEqual(['TRUST_PROXY: not an address or CIDR: proxy.internal']);
  });

  it('refuses a missing DATABASE_URL in production', () => {
    expect(problemsOf({ NODE_ENV: 'production', APP_URL, SESSION_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: KEY })).toEqual([
      expect.stringMatching(/^DATABASE_URL: must be set in production/),
    ]);
  });

  it('refuses a channel token without MESSAGING_APP_SECRET in production, and allows it outside', () => {
    const channel = { MESSAGING_ACCESS_TOKEN: 'token', MESSAGING_PHONE_NUMBER_ID: '123' };
    expect(problemsOf({ ...PRODUCTION, ...channel })).toEqual([expect.stringMatching(/^MESSAGING_APP_SECRET: /)]);
    expect(problemsOf(channel)).toEqual([]);
  });

  it('refuses a PASSWORD_HASH_COST below 15 in production, and takes it outside (the tests run on 10)', () => {
    expect(problemsOf({ ...PRODUCTION, PASSWORD_HASH_COST: '10' })).toEqual([
      expect.stringMatching(/^PASSWORD_HASH_COST: must be at least 15 in production/),
    ]);
    expect(problemsOf({ ...PRODUCTION, PASSWORD_HASH_COST: '16' })).toEqual([]);
    expect(problemsOf({ PASSWORD_HASH_COST: '10' })).toEqual([]);
    expect(problemsOf({ PASSWORD_HASH_COST: '9' })).toEqual([expect.stringMatching(/^PASSWORD_HASH_COST: /)]);
  });

  it('refuses a missing ENCRYPTION_KEY in production', () => {
    expect(problemsOf({ NODE_ENV: 'production', APP_URL, SESSION_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://db/x' })).toEqual([
      expect.stringMatching(/^ENCRYPTION_KEY: must be set in production/),
    ]);
  });

  it('reads ENCRYPTION_KEY, ENCRYPTION_KEY_PREVIOUS and EVENT_RETENTION', () => {
    const previous = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    expect(
      loadConfig(
        {
          ENCRYPTION_KEY: KEY,
          ENCRYPTION_KEY_PREVIOUS: `${previous[0].toString('base64')}, ${previous[1].toString('hex')}`,
          EVENT_RETENTION: '1h',
        },
        generated,
      ),
    ).toMatchObject({ encryptionKey: Buffer.from(KEY, 'base64'), encryptionKeysPrevious: previous, eventRetentionMs: 3_600_000 });
    expect(loadConfig({}, generated)).toMatchObject({ encryptionKey: null, encryptionKeysPrevious: [], eventRetentionMs: 30 * 86_400_000 });
  });

  it('never quotes a key in its problems', () => {
    const wrongLength = Buffer.from('a-key-that-is-too-short').toString('base64');
    const problems = problemsOf({ ENCRYPTION_KEY: wrongLength, ENCRYPTION_KEY_PREVIOUS: `${KEY},not-a-key-at-all!` });
    expect(problems).toEqual([
      expect.stringMatching(/^ENCRYPTION_KEY: /),
      expect.stringMatching(/^ENCRYPTION_KEY_PREVIOUS: entry 2 of 2 is not 32 bytes/),
    ]);
    for (const text of [wrongLength, KEY, 'not-a-key-at-all!']) expect(problems.join('\n')).not.toContain(text);
  });

  it('reads MESSAGING_BUSINESS_ACCOUNT_ID and MESSAGING_TEMPLATE_SYNC_INTERVAL, 15 minutes by default', () => {
    expect(
      loadConfig({ MESSAGING_BUSINESS_ACCOUNT_ID: '102290129340398', MESSAGING_TEMPLATE_SYNC_INTERVAL: '1h' }, generated),
    ).toMatchObject({
      messagingBusinessAccountId: '102290129340398',
      messagingTemplateSyncIntervalMs: 3_600_000,
    });
    expect(loadConfig({}, generated)).toMatchObject({ messagingBusinessAccountId: null, messagingTemplateSyncIntervalMs: 900_000 });
  });

  it('refuses a MESSAGING_BUSINESS_ACCOUNT_ID that is not the digits of an id', () => {
    expect(problemsOf({ MESSAGING_BUSINESS_ACCOUNT_ID: 'acct-1' })).toEqual([
      expect.stringMatching(/^MESSAGING_BUSINESS_ACCOUNT_ID: must be the digits/),
    ]);
    expect(problemsOf({ MESSAGING_BUSINESS_ACCOUNT_ID: '102290129340398' })).toEqual([]);
  });

  it('refuses ADMIN_EMAIL without ADMIN_PASSWORD', () => {
    expect(problemsOf({ ADMIN_EMAIL: 'a@example.com' })).toEqual([expect.stringMatching(/^ADMIN_EMAIL: /)]);
  });

  it('treats an empty setting as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: ' ' }, generated)).toMatchObject({ databaseUrl: null, port: 3000 });
  });

  it('refuses a missing APP_URL in production: it is the base of every link e-mailed or answered', () => {
    expect(
      problemsOf({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://db/x', ENCRYPTION_KEY: KEY }),
    ).toEqual([expect.stringMatching(/^APP_URL: must be set in production/)]);
  });

  it('runs without an e-mail provider, links based on localhost and the port, and the e-mail defaults', () => {
    expect(loadConfig({ PORT: '4000' }, generated)).toMatchObject({
      emailProvider: null,
      emailApiBaseUrl: null,
      appUrl: 'http://localhost:4000',
      emailRetryScheduleMs: [10_000, 60_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000],
      emailNotificationDelayMs: 300_000,
      emailDigestIntervalMs: 3_600_000,
      passwordResetRateLimitMaxRequests: 5,
      passwordResetRateLimitWindowMs: 3_600_000,
    });
  });

  it.each([
    ['postmark', 'https://api.postmarkapp.com'],
    ['sendgrid', 'https://api.sendgrid.com'],
    ['resend', 'https://api.resend.com'],
  ])('reads EMAIL_PROVIDER=%s with its key, and its API address unless EMAIL_API_BASE_URL says otherwise', (provider, address) => {
    const email = {
      EMAIL_PROVIDER: provider,
      EMAIL_API_KEY: 'key-1',
      EMAIL_FROM: 'team@example.com',
      APP_URL: 'https://inbox.example.com',
    };
    expect(loadConfig(email, generated)).toMatchObject({ emailProvider: provider, emailApiKey: 'key-1', emailApiBaseUrl: address });
    expect(loadConfig({ ...email, EMAIL_API_BASE_URL: 'http://127.0.0.1:9/' }, generated)).toMatchObject({
      emailApiBaseUrl: 'http://127.0.0.1:9',
    });
  });

  it.each([
    [
      'EMAIL_PROVIDER=postmark without EMAIL_API_KEY',
      { EMAIL_PROVIDER: 'postmark' },
      /^EMAIL_API_KEY: must be set when EMAIL_PROVIDER=postmark/,
    ],
    ['EMAIL_PROVIDER=resend without EMAIL_API_KEY', { EMAIL_PROVIDER: 'resend' }, /^EMAIL_API_KEY: must be set when EMAIL_PROVIDER=resend/],
    ['EMAIL_PROVIDER=smtp without EMAIL_SMTP_URL', { EMAIL_PROVIDER: 'smtp' }, /^EMAIL_SMTP_URL: must be set when EMAIL_PROVIDER=smtp/],
    ['an unknown EMAIL_PROVIDER', { EMAIL_PROVIDER: 'mailgun' }, /^EMAIL_PROVIDER: expected one of smtp, postmark, sendgrid, resend/],
  ])('refuses %s, naming the setting', (_, env, message) => {
    const rest = { EMAIL_FROM: 'team@example.com', APP_URL: 'https://inbox.example.com' };
    expect(problemsOf({ ...rest, ...env })).toEqual([expect.stringMatching(message)]);
  });

  it('refuses a provider without EMAIL_FROM or APP_URL', () => {
    expect(problemsOf({ EMAIL_PROVIDER: 'smtp', EMAIL_SMTP_URL: 'smtp://127.0.0.1:2525' })).toEqual([
      expect.stringMatching(/^EMAIL_FROM: must be set when EMAIL_PROVIDER is set/),
      expect.stringMatching(/^APP_URL: must be set when EMAIL_PROVIDER is set/),
    ]);
  });

  it('never quotes EMAIL_SMTP_URL, which holds the password, in its problem', () => {
    const problems = problemsOf({ EMAIL_SMTP_URL: 'http://user:hunter2-secret@mail.example.com' });
    expect(problems).toEqual([expect.stringMatching(/^EMAIL_SMTP_URL: expected a URL starting with smtp:\/\/ or smtps:\/\//)]);
    expect(problems.join('\n')).not.toContain('hunter2-secret');
  });
});

describe('parseDuration', () => {
  it.each([
    ['1500ms', 1500],
    ['5s', 5000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([['5'], ['5 s'], ['-5s'], ['1.5h'], ['']])('refuses %p', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

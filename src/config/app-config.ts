import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseDuration } from './duration';
import { parseKey } from './encryption-key';

export type NodeEnv = 'development' | 'production' | 'test';

/** The shortest SESSION_SECRET production takes, and the shortest kept development secret used. */
export const MIN_SESSION_SECRET_LENGTH = 32;
/** PASSWORD_HASH_COST unless set, and its floor in production: log2 of scrypt's N (2^15: 32 MiB, ~50-100 ms a hash). */
export const DEFAULT_PASSWORD_HASH_COST = 15;
/** Who sends e-mail: an SMTP server (nodemailer) or a provider's HTTP API. Unset (null): nobody (see `Mailer`). */
export type EmailProvider = 'smtp' | 'postmark' | 'sendgrid' | 'resend';
export const EMAIL_PROVIDERS: readonly EmailProvider[] = ['smtp', 'postmark', 'sendgrid', 'resend'];
/** The HTTP APIs' own addresses, used unless EMAIL_API_BASE_URL says otherwise. */
const EMAIL_API_BASE_URLS: Record<Exclude<EmailProvider, 'smtp'>, string> = {
  postmark: 'https://api.postmarkapp.com',
  sendgrid: 'https://api.sendgrid.com',
  resend: 'https://api.resend.com',
};
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * Every setting of the service, parsed and validated once at start-up by `loadConfig`.
 * Injected by its class: `constructor(private readonly config: AppConfig)`.
 */
export class AppConfig {
  readonly nodeEnv!: NodeEnv;
  readonly host!: string;
  readonly port!: number;
  /**
   * The base of every link the service sends (invitations, password resets, notification
   * e-mails), without a trailing slash. Required in production and with an e-mail provider;
   * `http://localhost:<PORT>` otherwise.
   */
  readonly appUrl!: string;
  /** The proxies whose X-Forwarded-For names the client (rate limits); see Reader.trustProxy. */
  readonly trustProxy!: boolean | string[];
  readonly logLevel!: LogLevel;
  /** `json` lines, or `pretty` readable ones; null: pretty when standard output is a terminal outside production, else JSON. */
  readonly logFormat!: 'json' | 'pretty' | null;
  readonly corsOrigins!: string[];

  /** HS256 key for access tokens; generated per process outside production when unset. */
  readonly sessionSecret!: string;
  readonly sessionSecretGenerated!: boolean;
  readonly authTokenTtlMs!: number;
  readonly adminEmail!: string | null;
  readonly adminPassword!: string | null;
  readonly betaAccessOnly!: boolean;

  /**
   * Encrypts secrets stored in the database (32 bytes). Null outside production when unset: a
   * development key kept in `dataDir` is used instead (see SecretBox).
   */
  readonly encryptionKey!: Buffer | null;
  /** Older keys, still accepted for reading until every value is re-encrypted with `encryptionKey`. */
  readonly encryptionKeysPrevious!: Buffer[];

  /** PostgreSQL connection string; null selects the embedded PGlite database in `dataDir`. */
  readonly databaseUrl!: string | null;
  readonly databasePoolMax!: number;
  readonly dataDir!: string;

  /** Redis connection string; null keeps queues, rate-limit counts and fan-out in-process. */
  readonly redisUrl!: string | null;
  readonly redisPrefix!: string;

  readonly rateLimitWindowMs!: number;
  readonly rateLimitMaxRequests!: number;
  readonly loginRateLimitWindowMs!: number;
  readonly loginRateLimitMaxRequests!: number;
  /** Event streams one user may have open at once, across every instance; one more is refused (429). */
  readonly streamMaxPerUser!: number;
  /** log2 of scrypt's N for new password hashes (15: 32 MiB, ~50-100 ms); at least 15 in production. */
  readonly passwordHashCost!: number;
  /** Who must sign in with a second factor (TOTP): a user it covers without one can only enrol. */
  readonly require2fa!: 'off' | 'admins' | 'all';
  /** How long the audit log is kept. */
  readonly auditRetentionMs!: number;
  /** POST /api/v1/auth/forgot-password per e-mail address (the per-IP limit is the login one). */
  readonly passwordResetRateLimitWindowMs!: number;
  readonly passwordResetRateLimitMaxRequests!: number;

  readonly messagingAccessToken!: string | null;
  readonly messagingPhoneNumberId!: string | null;
  /** The WhatsApp Business Account whose message templates make the catalogue; null: no catalogue, template sends unchecked. */
  readonly messagingBusinessAccountId!: string | null;
  readonly messagingWebhookVerifyToken!: string | null;
  readonly messagingAppSecret!: string | null;
  readonly messagingApiBaseUrl!: string;
  /** Delays between attempts to send a message through the channel after a 429, 5xx or network error. */
  readonly messagingRetryScheduleMs!: number[];
  /** Whether an agent reading a conversation tells the customer's phone (blue ticks). */
  readonly messagingReadReceipts!: boolean;
  /** How often the template catalogue is synced from the business account (one sync for all replicas). */
  readonly messagingTemplateSyncIntervalMs!: number;

  readonly webhookAllowPrivateUrls!: boolean;
  readonly webhookRetryScheduleMs!: number[];
  readonly webhookTimeoutMs!: number;

  /** How long relayed events and finished webhook deliveries are kept; at least an hour (the stream's resume window). */
  readonly eventRetentionMs!: number;

  /** Where media bytes are kept: the file system under `mediaDir`, or an S3-compatible service. */
  readonly mediaStore!: 'filesystem' | 's3';
  readonly mediaDir!: string;
  readonly s3Endpoint!: string | null;
  readonly s3Region!: string;
  readonly s3Bucket!: string | null;
  readonly s3AccessKeyId!: string | null;
  readonly s3SecretAccessKey!: string | null;
  readonly s3ForcePathStyle!: boolean;
  /** How long a signed media URL in an answer stays valid. */
  readonly mediaUrlTtlMs!: number;
  /** Delays between attempts to download an inbound media from the channel; the last repeats until the channel drops the media (7 days). */
  readonly mediaDownloadRetryScheduleMs!: number[];
  /** How long an upload no message was sent with is kept before it is deleted. */
  readonly mediaUploadTtlMs!: number;
  /** The bytes of unsent uploads (younger than the TTL) one user may have stored at once. */
  readonly mediaUploadQuotaBytes!: number;

  /** Null: no e-mail is sent (development writes each one, links included, to the log). */
  readonly emailProvider!: EmailProvider | null;
  /** The key of postmark, sendgrid or resend (required with them). */
  readonly emailApiKey!: string | null;
  /** smtp://user:pass@host:587 or smtps://…:465 (required with smtp). */
  readonly emailSmtpUrl!: string | null;
  /** The provider's HTTP API address, without a trailing slash (EMAIL_API_BASE_URL overrides it, for tests). */
  readonly emailApiBaseUrl!: string | null;
  /** The sender address (required with a provider). */
  readonly emailFrom!: string;
  /** Delays between attempts at an e-mail after a transient failure (429, 5xx, 4xx SMTP, network). */
  readonly emailRetryScheduleMs!: number[];
  /** How long a notification stays unread before it is e-mailed (immediate) or is listed in the next digest. */
  readonly emailNotificationDelayMs!: number;
  /** How long an agent set `online` counts as present after their last event stream ended, and how long one `offline` keeps their conversations in inboxes that assign by themselves. */
  readonly availabilityTimeoutMs!: number;
  /** A customer's whole message equal (any case) to one of these opts them out of campaigns; to one of the opt-in words, back in. Upper-cased. */
  readonly campaignOptOutWords!: string[];
  readonly campaignOptInWords!: string[];
  /** At most one digest e-mail per user per this long. */
  readonly emailDigestIntervalMs!: number;
  /** A port of its own for GET /metrics (on HOST), or null: then metrics are on the main port when metricsToken is set. */
  readonly metricsPort!: number | null;
  /** The bearer token of GET /metrics on the main port; with neither this nor metricsPort, metrics are off. */
  readonly metricsToken!: string | null;

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads and validates every setting from `env`. Collects all problems before failing, so one
 * start-up tells the operator everything that is wrong, each problem naming its setting.
 */
export function loadConfig(env: Env, generateSecret: () => string): AppConfig {
  const problems: string[] = [];
  const read = new SettingReader(env, problems);

  const nodeEnv = read.oneOf('NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const production = nodeEnv === 'production';

  const sessionSecretSetting = read.string('SESSION_SECRET');
  if (production && (sessionSecretSetting === null || sessionSecretSetting.length < MIN_SESSION_SECRET_LENGTH)) {
    problems.push('SESSION_SECRET: must be set to a random string of at least 32 characters in production');
  }

  const databaseUrl = read.url('DATABASE_URL', ['postgres:', 'postgresql:']);
  if (production && databaseUrl === null) {
    problems.push('DATABASE_URL: must be set in production (the embedded database is for one process only)');
  }

  const encryptionKey = read.key('ENCRYPTION_KEY');
  if (production && encryptionKey === null && read.string('ENCRYPTION_KEY') === null) {
    problems.push(
      'ENCRYPTION_KEY: must be set in production to 32 random bytes in base64 (openssl rand -base64 32), which encrypt secrets stored in the database',
    );
  }

  const eventRetentionMs = read.duration('EVENT_RETENTION', '30d');
  if (parseDuration(read.string('EVENT_RETENTION') ?? '30d') !== null && eventRetentionMs < 3_600_000) {
    problems.push('EVENT_RETENTION: must be at least 1h, so a client of the event stream can resume (Last-Event-ID) after an hour away');
  }

  const messagingAccessToken = read.string('MESSAGING_ACCESS_TOKEN');
  const messagingAppSecret = read.string('MESSAGING_APP_SECRET');
  if (production && messagingAccessToken !== null && messagingAppSecret === null) {
    problems.push('MESSAGING_APP_SECRET: must be set in production when MESSAGING_ACCESS_TOKEN is set, so inbound webhooks are verified');
  }
  const messagingPhoneNumberId = read.string('MESSAGING_PHONE_NUMBER_ID');
  if (messagingAccessToken !== null && messagingPhoneNumberId === null) {
    problems.push('MESSAGING_PHONE_NUMBER_ID: must be set when MESSAGING_ACCESS_TOKEN is set');
  }
  const messagingBusinessAccountId = read.string('MESSAGING_BUSINESS_ACCOUNT_ID');
  if (messagingBusinessAccountId !== null && !/^[0-9]{1,32}$/.test(messagingBusinessAccountId)) {
    problems.push('MESSAGING_BUSINESS_ACCOUNT_ID: must be the digits of the WhatsApp Business Account id (in Meta’s dashboard)');
  }

  const messagingTemplateSyncIntervalMs = read.duration('MESSAGING_TEMPLATE_SYNC_INTERVAL', '15m');
  if (parseDuration(read.string('MESSAGING_TEMPLATE_SYNC_INTERVAL') ?? '15m') !== null && messagingTemplateSyncIntervalMs < 1_000) {
    problems.push('MESSAGING_TEMPLATE_SYNC_INTERVAL: must be at least 1s');
  }
  const mediaStore = read.oneOf('MEDIA_STORE', ['filesystem', 's3'] as const, 'filesystem');
  const s3Bucket = read.string('S3_BUCKET');
  if (mediaStore === 's3' && s3Bucket === null) problems.push('S3_BUCKET: must be set when MEDIA_STORE is s3');
  const s3AccessKeyId = read.string('S3_ACCESS_KEY_ID');
  const s3SecretAccessKey = read.string('S3_SECRET_ACCESS_KEY');
  if ((s3AccessKeyId === null) !== (s3SecretAccessKey === null)) {
    problems.push('S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  }
  const mediaUrlTtlMs = read.duration('MEDIA_URL_TTL', '15m');
  if (parseDuration(read.string('MEDIA_URL_TTL') ?? '15m') !== null && (mediaUrlTtlMs < 1000 || mediaUrlTtlMs > 7 * 86_400_000)) {
    problems.push('MEDIA_URL_TTL: must be from 1s to 7d (signed media URLs are meant to be short-lived)');
  }
  const dataDir = read.string('DATA_DIR') ?? './data';

  const adminEmail = read.string('ADMIN_EMAIL');
  const adminPassword = read.string('ADMIN_PASSWORD');
  if ((adminEmail === null) !== (adminPassword === null)) {
    problems.push('ADMIN_EMAIL: ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }
  if (adminPassword !== null && adminPassword.length < 8) {
    problems.push('ADMIN_PASSWORD: must have at least 8 characters');
  }

  const port = read.integer('PORT', 3000, 0, 65535);
  const emailProvider = read.oneOfOrNull('EMAIL_PROVIDER', EMAIL_PROVIDERS);
  const emailApiKey = read.string('EMAIL_API_KEY');
  const emailSmtpUrl = read.url('EMAIL_SMTP_URL', ['smtp:', 'smtps:']);
  const emailFrom = read.email('EMAIL_FROM');
  const appUrl = read.url('APP_URL', ['http:', 'https:']);
  if (emailProvider === 'smtp' && emailSmtpUrl === null && read.string('EMAIL_SMTP_URL') === null) {
    problems.push('EMAIL_SMTP_URL: must be set when EMAIL_PROVIDER=smtp (smtp://user:pass@host:587)');
  }
  if (emailProvider !== null && emailProvider !== 'smtp' && emailApiKey === null) {
    problems.push(`EMAIL_API_KEY: must be set when EMAIL_PROVIDER=${emailProvider}`);
  }
  if (emailProvider !== null && emailFrom === null && read.string('EMAIL_FROM') === null) {
    problems.push('EMAIL_FROM: must be set when EMAIL_PROVIDER is set (the sender address)');
  }
  if ((emailProvider !== null || production) && appUrl === null && read.string('APP_URL') === null) {
    problems.push(
      `APP_URL: must be set ${production ? 'in production' : 'when EMAIL_PROVIDER is set'}: it is the base of the links in invitations and password resets`,
    );
  }
  const emailApiBaseUrl = read.url('EMAIL_API_BASE_URL', ['http:', 'https:']);
  const passwordHashCost = read.integer('PASSWORD_HASH_COST', DEFAULT_PASSWORD_HASH_COST, 10, 20);
  if (production && passwordHashCost < DEFAULT_PASSWORD_HASH_COST) {
    problems.push(`PASSWORD_HASH_COST: must be at least ${DEFAULT_PASSWORD_HASH_COST} in production (a cheaper hash is for tests)`);
  }
  const metricsPort = read.string('METRICS_PORT') === null ? null : read.integer('METRICS_PORT', 0, 1, 65535);
  const metricsToken = read.string('METRICS_TOKEN');
  if (metricsToken !== null && metricsToken.length < 16) {
    problems.push('METRICS_TOKEN: must have at least 16 characters (it guards the metrics on the public port)');
  }
  if (metricsPort !== null && metricsPort === port) problems.push('METRICS_PORT: must differ from PORT');

  const config: Omit<AppConfig, 'isProduction'> = {
    nodeEnv,
    host: read.string('HOST') ?? '0.0.0.0',
    port,
    appUrl: (appUrl ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    trustProxy: read.trustProxy('TRUST_PROXY', production),
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    logFormat: read.oneOfOrNull('LOG_FORMAT', ['json', 'pretty'] as const),
    corsOrigins: read.list('CORS_ORIGIN'),
    sessionSecret: sessionSecretSetting ?? generateSecret(),
    sessionSecretGenerated: sessionSecretSetting === null,
    authTokenTtlMs: read.duration('AUTH_TOKEN_TTL', '12h'),
    adminEmail: adminEmail?.toLowerCase() ?? null,
    adminPassword,
    betaAccessOnly: read.boolean('BETA_ACCESS_ONLY', false),
    encryptionKey,
    encryptionKeysPrevious: read.keys('ENCRYPTION_KEY_PREVIOUS'),
    databaseUrl,
    databasePoolMax: read.integer('DATABASE_POOL_MAX', 10, 1, 500),
    dataDir,
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: read.string('REDIS_PREFIX') ?? 'team-inbox:',
    rateLimitWindowMs: read.integer('RATE_LIMIT_WINDOW_MS', 900_000, 1),
    rateLimitMaxRequests: read.integer('RATE_LIMIT_MAX_REQUESTS', 100, 1),
    loginRateLimitWindowMs: read.integer('LOGIN_RATE_LIMIT_WINDOW_MS', 60_000, 1),
    loginRateLimitMaxRequests: read.integer('LOGIN_RATE_LIMIT_MAX_REQUESTS', 10, 1),
    streamMaxPerUser: read.integer('STREAM_MAX_PER_USER', 5, 1),
    passwordHashCost,
    require2fa: read.oneOf('REQUIRE_2FA', ['off', 'admins', 'all'] as const, 'off'),
    auditRetentionMs: read.duration('AUDIT_RETENTION', '365d'),
    passwordResetRateLimitWindowMs: read.integer('PASSWORD_RESET_RATE_LIMIT_WINDOW_MS', 3_600_000, 1),
    passwordResetRateLimitMaxRequests: read.integer('PASSWORD_RESET_RATE_LIMIT_MAX_REQUESTS', 5, 1),
    messagingAccessToken,
    messagingPhoneNumberId,
    messagingBusinessAccountId,
    messagingWebhookVerifyToken: read.string('MESSAGING_WEBHOOK_VERIFY_TOKEN'),
    messagingAppSecret,
    messagingApiBaseUrl: (read.url('MESSAGING_API_BASE_URL', ['http:', 'https:']) ?? 'https://graph.facebook.com/v24.0').replace(
      /\/+$/,
      '',
    ),
    messagingRetryScheduleMs: read.durations('MESSAGING_RETRY_SCHEDULE', '2s,10s,1m,5m,15m'),
    messagingReadReceipts: read.boolean('MESSAGING_READ_RECEIPTS', true),
    messagingTemplateSyncIntervalMs,
    webhookAllowPrivateUrls: read.boolean('WEBHOOK_ALLOW_PRIVATE_URLS', false),
    webhookRetryScheduleMs: read.durations('WEBHOOK_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,10h'),
    webhookTimeoutMs: read.integer('WEBHOOK_TIMEOUT_MS', 10_000, 1),
    eventRetentionMs,
    mediaStore,
    mediaDir: read.string('MEDIA_DIR') ?? join(dataDir, 'media'),
    mediaUploadTtlMs: read.duration('MEDIA_UPLOAD_TTL', '24h'),
    mediaUploadQuotaBytes: read.integer('MEDIA_UPLOAD_QUOTA_MB', 1024, 1) * 1024 * 1024,
    s3Endpoint: read.url('S3_ENDPOINT', ['http:', 'https:']),
    s3Region: read.string('S3_REGION') ?? 'us-east-1',
    s3Bucket,
    s3AccessKeyId,
    s3SecretAccessKey,
    s3ForcePathStyle: read.boolean('S3_FORCE_PATH_STYLE', false),
    mediaUrlTtlMs,
    mediaDownloadRetryScheduleMs: read.durations('MEDIA_DOWNLOAD_RETRY_SCHEDULE', '10s,1m,5m,30m,2h,6h'),
    emailProvider,
    emailApiKey,
    emailSmtpUrl,
    emailApiBaseUrl:
      emailProvider === null || emailProvider === 'smtp'
        ? null
        : (emailApiBaseUrl ?? EMAIL_API_BASE_URLS[emailProvider]).replace(/\/+$/, ''),
    emailFrom: emailFrom ?? 'team-inbox@localhost',
    emailRetryScheduleMs: read.durations('EMAIL_RETRY_SCHEDULE', '10s,1m,5m,15m,30m,1h,2h'),
    emailNotificationDelayMs: read.duration('EMAIL_NOTIFICATION_DELAY', '5m'),
    availabilityTimeoutMs: read.duration('AVAILABILITY_TIMEOUT', '5m'),
    campaignOptOutWords: read.words('CAMPAIGN_OPT_OUT_WORDS', 'STOP'),
    campaignOptInWords: read.words('CAMPAIGN_OPT_IN_WORDS', 'START'),
    emailDigestIntervalMs: read.duration('EMAIL_DIGEST_INTERVAL', '1h'),
    metricsPort,
    metricsToken,
  };

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(Object.assign(new AppConfig(), config));
}

class SettingReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  /** The trimmed value, or null when unset or empty (an empty line in .env means "unset"). */
  string(name: string): string | null {
    const value = this.env[name]?.trim();
    return value ? value : null;
  }

  integer(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.string(name);
    if (value === null) return fallback;
    const parsed = /^-?\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      return this.fail(name, `expected an integer from ${min} to ${max}, got "${value}"`, fallback);
    }
    return parsed;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.string(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    return this.fail(name, `expected true or false, got "${value}"`, fallback);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.string(name);
    if (value === null) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    return this.fail(name, `expected one of ${allowed.join(', ')}, got "${value}"`, fallback);
  }

  /** One of `allowed`, or null when unset. */
  oneOfOrNull<T extends string>(name: string, allowed: readonly T[]): T | null {
    const value = this.string(name);
    if (value === null || (allowed as readonly string[]).includes(value)) return value as T | null;
    return this.fail(name, `expected one of ${allowed.join(', ')} (or unset), got "${value}"`, null);
  }

  url(name: string, protocols: string[]): string | null {
    const value = this.string(name);
    if (value === null) return null;
    try {
      if (protocols.includes(new URL(value).protocol)) return value;
    } catch {
      // reported below with the accepted schemes
    }
    return this.fail(name, `expected a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`, null);
  }

  email(name: string): string | null {
    const value = this.string(name);
    if (value === null || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return value;
    return this.fail(name, `expected an e-mail address, got "${value}"`, null);
  }

  duration(name: string, fallback: string): number {
    const value = this.string(name) ?? fallback;
    return parseDuration(value) ?? this.fail(name, `expected a duration such as 30m or 12h, got "${value}"`, 0);
  }

  /** A retry schedule: comma-separated durations, one per retry. */
  durations(name: string, fallback: string): number[] {
    const value = this.string(name) ?? fallback;
    const delays = value.split(',').map((part) => parseDuration(part));
    if (delays.some((ms) => ms === null)) return this.fail(name, `expected comma-separated durations such as 5s,5m,2h, got "${value}"`, []);
    return delays as number[];
  }

  /** A 32-byte key in base64 or hex; the problem never quotes the value, which is a secret. */
  key(name: string): Buffer | null {
    const value = this.string(name);
    if (value === null) return null;
    return parseKey(value) ?? this.fail(name, 'expected 32 bytes in base64 (openssl rand -base64 32) or hex (64 digits)', null);
  }

  /** Comma-separated keys, as `key` reads each one. */
  keys(name: string): Buffer[] {
    const values = this.list(name);
    const keys = values.map(parseKey);
    const bad = keys.flatMap((key, i) => (key === null ? [i + 1] : []));
    if (bad.length > 0) {
      return this.fail(name, `entry ${bad.join(', ')} of ${values.length} is not 32 bytes in base64 or hex (values not shown)`, []);
    }
    return keys as Buffer[];
  }

  /** Comma-separated words (or phrases) compared case-insensitively: upper-cased, at least one. */
  words(name: string, fallback: string): string[] {
    const words = (this.string(name) === null ? fallback.split(',') : this.list(name)).map((word) => word.trim().toUpperCase());
    return words.length > 0 ? words : this.fail(name, 'expected at least one word, comma-separated', []);
  }

  list(name: string): string[] {
    return (this.string(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }

  /**
   * Which proxies' X-Forwarded-For to believe: false, or a comma-separated list of their
   * addresses/CIDRs; `true` (every sender) only outside production, where it would let any
   * client name its own address to the rate limits.
   */
  trustProxy(name: string, production: boolean): boolean | string[] {
    const value = this.string(name);
    if (value === null || value === 'false') return false;
    if (value === 'true') {
      if (!production) return true;
      return this.fail(name, "`true` believes every client's X-Forwarded-For: name the proxy's addresses or network instead", false);
    }
    const entries = this.list(name);
    const bad = entries.filter((entry) => !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry));
    if (bad.length > 0) return this.fail(name, `not an address or CIDR: ${bad.join(', ')}`, false);
    return entries;
  }

  private fail<T>(name: string, problem: string, fallback: T): T {
    this.problems.push(`${name}: ${problem}`);
    return fallback;
  }
}

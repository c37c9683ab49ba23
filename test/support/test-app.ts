import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { DataSource } from 'typeorm';
import type { Method, Operation, PathOf, Success } from '../../console/src/api/operations.js';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/common/logger';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { RUN_PREFIX, TEST_REDIS_URL } from './environment';
import { createTestDatabase, TestDatabase } from './test-database';

export const ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };
/** The tests' ENCRYPTION_KEY (32 bytes, base64), so no development key file is written. */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- event data is whatever the event carries
type EventData = Record<string, any>;

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS';
/** What a refusal carries beside (or instead of) the documented body. */
interface Refusal {
  error?: string;
}
/**
 * The body of an answer, typed by the service's OpenAPI document: a documented path and method give
 * their success body (with the `error` of a refusal), so a test that reads a field the API does not
 * describe does not compile. An undocumented URL (the channel's webhook, /metrics, a URL built at
 * run time) answers `unknown`, so the test says what it expects.
 */
export type AnswerBody<M extends HttpMethod, U extends string> = [PathOf<U>] extends [never]
  ? unknown
  : Lowercase<M> extends Method
    ? Operation<PathOf<U>, Lowercase<M>> extends never
      ? unknown
      : Success<Operation<PathOf<U>, Lowercase<M>>> extends infer B
        ? [B] extends [undefined]
          ? Refusal | undefined
          : B & Refusal
        : never
    : unknown;

/** The query part of a URL built by a test: none, or one starting with `?` (so the path stays known to the types). */
export type Query = '' | `?${string}`;

export interface Answer<B = unknown> {
  status: number;
  body: B;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** A raw payload instead of `body`, sent as is. */
  payload?: string | Buffer;
  headers?: Record<string, string>;
  /** The client address the request comes from (default 127.0.0.1). */
  ip?: string;
}

export interface StartOptions {
  /** Settings on top of the test defaults. */
  env?: Record<string, string>;
  /** A database shared with other instances; by default each app gets a fresh one, dropped on close. */
  database?: TestDatabase;
}

/** A full application on a real database, driven through HTTP with Fastify's `inject`. */
export class TestApp {
  private adminTokenPromise?: Promise<string>;

  constructor(
    readonly app: NestFastifyApplication,
    readonly config: AppConfig,
    readonly database: TestDatabase,
    private readonly ownsDatabase: boolean,
    /** Every JSON log line the app wrote. */
    readonly logs: Record<string, unknown>[],
  ) {}

  async request<M extends HttpMethod, U extends string>(
    method: M,
    url: U,
    options: RequestOptions = {},
  ): Promise<Answer<AnswerBody<M, U>>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload = options.payload;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await this.app.inject({ method, url, headers, payload, remoteAddress: options.ip });
    let body: unknown = undefined;
    try {
      body = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, body: body as AnswerBody<M, U>, headers: response.headers, text: response.body };
  }

  async login(email: string, password: string): Promise<string> {
    const answer = await this.request('POST', '/api/v1/auth/login', { body: { email, password } });
    if (answer.status !== 200) throw new Error(`login of ${email} answered ${answer.status}: ${answer.text}`);
    return (answer.body as { token: string }).token;
  }

  adminToken(): Promise<string> {
    this.adminTokenPromise ??= this.login(ADMIN.email, ADMIN.password);
    return this.adminTokenPromise;
  }

  /** Creates a user through the API and logs them in. */
  async createUser(
    fields: { role?: 'admin' | 'agent'; beta_access?: boolean; email?: string; name?: string; inbox_ids?: string[] } = {},
  ): Promise<{ id: string; email: string; password: string; token: string }> {
    const email = fields.email ?? `agent-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'a-long-password-1';
    const created = await this.request('POST', '/api/v1/users', {
      token: await this.adminToken(),
      body: {
        email,
        password,
        name: fields.name ?? 'Test Agent',
        role: fields.role ?? 'agent',
        beta_access: fields.beta_access ?? false,
        ...(fields.inbox_ids ? { inbox_ids: fields.inbox_ids } : {}),
      },
    });
    if (created.status !== 201) throw new Error(`creating ${email} answered ${created.status}: ${created.text}`);
    return { id: created.body.id as string, email, password, token: await this.login(email, password) };
  }

  /** The events recorded so far, oldest first, optionally of one type. */
  async events(type?: string): Promise<{ id: string; type: string; data: EventData; created_at: Date }[]> {
    return this.app
      .get(DataSource)
      .query(`SELECT id, type, data, created_at FROM events ${type ? 'WHERE type = $1' : ''} ORDER BY created_at, id`, type ? [type] : []);
  }

  /** Runs SQL on the app's own database (either engine). */
  sql<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.app.get(DataSource).query(sql, params);
  }

  async close(): Promise<void> {
    await this.app.close();
    if (this.ownsDatabase) await this.database.drop();
  }
}

export async function startTestApp(options: StartOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    SESSION_SECRET: 'test-session-secret-that-is-long-enough',
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_MAX_REQUESTS: '100000',
    LOGIN_RATE_LIMIT_MAX_REQUESTS: '100000',
    // Test files open streams by the dozen for one user; the cap's own tests set it.
    STREAM_MAX_PER_USER: '1000',
    DATABASE_POOL_MAX: '5',
    // Logins and new users by the hundred: the cheapest hash the service takes (production refuses it).
    PASSWORD_HASH_COST: '10',
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: freshRedisPrefix() } : {}),
    ...database.env,
    ...options.env,
  };
  const config = loadConfig(env, () => 'unused-because-session-secret-is-set');
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  try {
    const app = await createApp(config, createLogger(config.logLevel, sink));
    return new TestApp(app, config, database, options.database === undefined, logs);
  } catch (error) {
    if (options.database === undefined) await database.drop();
    throw error;
  }
}

/** A Redis key prefix no other test file uses; removed by the global teardown. */
export function freshRedisPrefix(): string {
  return `${RUN_PREFIX}:${randomBytes(4).toString('hex')}:`;
}

/** Two instances on one fresh database and one Redis key prefix, as replicas run; `close` ends both and drops the database. */
export async function startTwoInstances(env: Record<string, string> = {}): Promise<{ a: TestApp; b: TestApp; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const shared = { ...env, REDIS_PREFIX: freshRedisPrefix() };
  const a = await startTestApp({ database, env: shared });
  const b = await startTestApp({ database, env: shared });
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
      await database.drop();
    },
  };
}

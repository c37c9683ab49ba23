import { JwtService } from '@nestjs/jwt';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { PUBLIC_ROUTE } from '../src/auth/auth.decorators';
import { REQUIRED_ROLES, SESSION_ONLY } from '../src/users/roles.decorator';
import { channelMessage, channelWebhook, eventually, hubSignature } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { ADMIN, Answer, startTestApp, TestApp } from './support/test-app';

/**
 * Every endpoint of the OpenAPI document against every kind of bad credential. The endpoint list
 * comes from the app's own document (GET /api/docs-json), and whether an operation is public or
 * admin-only is read from Nest's metadata on its handler (@Public, @Roles) and checked against
 * the lists below and the document's "(admin)" summaries, so a new endpoint cannot slip through.
 */

/** The operations anyone may call. Anything else in the document must need a token. */
const PUBLIC_OPERATIONS = new Set([
  'GET /api/health',
  'GET /api/health/db',
  'GET /api/health/redis',
  'GET /api/health/ready',
  'GET /api/health/messaging',
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/login/mfa',
  'POST /api/v1/auth/accept-invite',
  'POST /api/v1/auth/forgot-password',
  'POST /api/v1/auth/reset-password',
  'GET /api/webhooks/messaging',
  'POST /api/webhooks/messaging',
]);

/**
 * Operations outside the API that guard themselves with a token of their own, not a user's: the
 * Prometheus scrape (METRICS_TOKEN; test/metrics.e2e.spec.ts checks it). Served outside /api.
 */
const OWN_TOKEN_OPERATIONS = new Set(['GET /metrics']);

const SESSION_SECRET = 'access-test-session-secret-long-enough';
const APP_SECRET = 'access-test-app-secret-5f1c9e';
const GRAPH_TOKEN = 'access-test-graph-token-7a2b4d';
const VERIFY_TOKEN = 'access-test-verify-token-91ce';
const WEBHOOK_SECRET = 'access-test-webhook-secret-3e8d0c27';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

interface Operation {
  method: Method;
  /** The document's path, e.g. /api/v1/users/{id}. */
  path: string;
  /** A concrete URL: path parameters filled with unknown ids of a plausible shape. */
  url: string;
  summary: string;
  public: boolean;
  roles: string[] | null;
  sessionOnly: boolean;
  stream: boolean;
}

interface NestRoute {
  public: boolean;
  roles: string[] | null;
  /** Refuses API tokens (@SessionOnly): the account's own credentials. */
  sessionOnly: boolean;
}

/** Nest's own view of every route: `METHOD /api/path/{param}` -> its guard metadata. */
function nestRoutes(t: TestApp): Map<string, NestRoute> {
  const routes = new Map<string, NestRoute>();
  const join = (...parts: string[]) =>
    '/' +
    parts
      .flatMap((part) => part.split('/'))
      .filter(Boolean)
      .join('/');
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller) continue;
      const controllerPaths = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]].flat();
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const methodPath = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (methodPath === undefined || requestMethod === undefined) continue;
        const isPublic = Boolean(Reflect.getMetadata(PUBLIC_ROUTE, handler) ?? Reflect.getMetadata(PUBLIC_ROUTE, controller));
        const roles = (Reflect.getMetadata(REQUIRED_ROLES, handler) ?? Reflect.getMetadata(REQUIRED_ROLES, controller) ?? null) as
          string[] | null;
        const sessionOnly = Boolean(Reflect.getMetadata(SESSION_ONLY, handler) ?? Reflect.getMetadata(SESSION_ONLY, controller));
        for (const base of controllerPaths)
          for (const path of [methodPath].flat()) {
            const prefix = base === 'metrics' ? '' : 'api';
            const key = `${RequestMethod[requestMethod]} ${join(prefix, base, path).replace(/:(\w+)/g, '{$1}')}`;
            routes.set(key, { public: isPublic, roles, sessionOnly });
          }
      }
    }
  }
  return routes;
}

/** An id nobody has, with the prefix the parameter's name suggests. */
function unknownId(path: string, parameter: string): string {
  const before = path.slice(0, path.indexOf(`{${parameter}}`));
  const segment = before.split('/').filter(Boolean).at(-1) ?? '';
  const prefixes: Record<string, string> = {
    users: 'user',
    conversations: 'conv',
    contacts: 'ct',
    notifications: 'ntf',
    webhooks: 'wh',
    deliveries: 'dlv',
    failed: 'ibf',
    templates: 'tpl',
    messages: 'msg',
    events: 'evt',
    labels: 'lbl',
    'canned-responses': 'cr',
    media: 'med',
    'api-tokens': 'tok',
    teams: 'team',
  };
  const prefix = prefixes[segment] ?? (parameter.endsWith('delivery_id') ? 'dlv' : 'x');
  return `${prefix}_0000000000000000000000`;
}

describe('access control of every endpoint', () => {
  let t: TestApp;
  let graph: FakeGraphApi;
  let operations: Operation[];
  let admin: string;
  let controlAdmin: { email: string; password: string };
  let agent: { id: string; email: string; password: string; token: string };
  let streamBaseUrl: string;
  let cases = 0;
  /** Every token any request of this file carried, for the log scan. */
  const tokensUsed = new Set<string>();
  /** The tokens of invitation links, which must never reach the log either. */
  const linkTokens = new Set<string>();

  /** Invites a user (no e-mail provider here: the link is answered) and answers the link's token. */
  async function invitationToken(): Promise<string> {
    const invited = await t.request('POST', '/api/v1/users', {
      token: admin,
      body: { email: `invited-${linkTokens.size}-${Date.now()}@example.com`, name: 'Invited', role: 'agent' },
    });
    expect(invited.status).toBe(201);
    const token = new URL(invited.body.invite_url as string).searchParams.get('token')!;
    linkTokens.add(token);
    return token;
  }

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({
      env: {
        SESSION_SECRET,
        MESSAGING_ACCESS_TOKEN: GRAPH_TOKEN,
        MESSAGING_APP_SECRET: APP_SECRET,
        MESSAGING_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
        MESSAGING_PHONE_NUMBER_ID: '106540352242922',
        MESSAGING_BUSINESS_ACCOUNT_ID: '102290129340398',
        MESSAGING_API_BASE_URL: graph.baseUrl,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      },
    });
    await t.app.listen(0, '127.0.0.1');
    streamBaseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    admin = await t.adminToken();
    tokensUsed.add(admin);
    const control = await t.createUser({ role: 'admin' });
    controlAdmin = { email: control.email, password: control.password };
    tokensUsed.add(control.token);
    agent = await t.createUser({ role: 'agent' });
    tokensUsed.add(agent.token);

    const document = (await t.request('GET', '/api/docs-json')).body as {
      paths: Record<string, Record<string, { summary?: string; responses?: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const routes = nestRoutes(t);
    operations = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const key = `${method.toUpperCase()} ${path}`;
        const route = routes.get(key);
        if (!route) throw new Error(`${key} is in the OpenAPI document but no Nest route has it`);
        if (OWN_TOKEN_OPERATIONS.has(key)) continue;
        const url = path.replace(/\{(\w+)\}/g, (_, parameter: string) => unknownId(path, parameter));
        const stream = Object.values(operation.responses ?? {}).some((response) => 'text/event-stream' in (response.content ?? {}));
        operations.push({
          method: method.toUpperCase() as Method,
          path,
          url,
          summary: operation.summary ?? '',
          public: route.public,
          roles: route.roles,
          sessionOnly: route.sessionOnly,
          stream,
        });
      }
    }
  });

  afterAll(async () => {
    process.stdout.write(`access: ${cases} cases over ${operations?.length ?? 0} operations\n`);
    await t.close();
    await graph.close();
  });

  const keyOf = (operation: Operation) => `${operation.method} ${operation.path}`;
  const protectedOperations = () => operations.filter((operation) => !operation.public);
  const adminOperations = () => operations.filter((operation) => operation.roles?.includes('admin') && !operation.roles.includes('agent'));

  /**
   * Calls an operation with the given Authorization header value (or none). The event stream
   * goes over a real socket and is dropped once its headers arrive: it never ends by itself.
   */
  async function call(operation: Operation, authorization?: string, query = ''): Promise<Answer> {
    cases += 1;
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    const url = operation.url + query;
    if (operation.stream) {
      const abort = new AbortController();
      const response = await fetch(streamBaseUrl + url, { headers, signal: abort.signal });
      const type = response.headers.get('content-type') ?? '';
      let text = '';
      if (type.includes('text/event-stream')) abort.abort();
      else text = await response.text();
      let body: unknown = undefined;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: response.status, body, headers: Object.fromEntries(response.headers), text };
    }
    const withBody = operation.method === 'POST' || operation.method === 'PATCH' || operation.method === 'PUT';
    return t.request(operation.method, url, { headers, ...(withBody ? { body: {} } : {}) });
  }

  const describeAnswer = (operation: Operation, answer: Answer) => `${keyOf(operation)} answered ${answer.status}: ${answer.text}`;

  function expectRefusal(operation: Operation, answer: Answer, status: 401 | 403): void {
    if (answer.status !== status) throw new Error(`expected ${status}; ${describeAnswer(operation, answer)}`);
    expect(Object.keys(answer.body as object)).toEqual(['error']);
    expect(typeof (answer.body as { error: unknown }).error).toBe('string');
  }

  function expectAllowed(operation: Operation, answer: Answer): void {
    if (answer.status === 401 || answer.status === 403 || answer.status >= 500)
      throw new Error(`expected the route to run; ${describeAnswer(operation, answer)}`);
  }

  /** A fresh login, so an operation that revokes the caller's tokens (logout) spoils nothing. */
  async function freshToken(user: { email: string; password: string }): Promise<string> {
    const token = await t.login(user.email, user.password);
    tokensUsed.add(token);
    return token;
  }

  /** The claims of a real token, signed some other way. */
  async function forged(options: { secret?: string; expiresIn?: number; claims?: Record<string, unknown> }): Promise<string> {
    const real = JSON.parse(Buffer.from(admin.split('.')[1], 'base64url').toString('utf8')) as { sub: string; ver: number };
    const jwt = new JwtService({ secret: options.secret ?? SESSION_SECRET });
    const token = await jwt.signAsync(
      { sub: real.sub, ver: real.ver, ...options.claims },
      options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn },
    );
    tokensUsed.add(token);
    return token;
  }

  it('lists in the OpenAPI document every route Nest serves, and finds exactly the expected public ones', () => {
    const documented = new Set(operations.map(keyOf));
    const served = [...nestRoutes(t).keys()];
    expect(served.filter((key) => !documented.has(key) && !OWN_TOKEN_OPERATIONS.has(key))).toEqual([]);
    expect(served).toEqual(expect.arrayContaining([...OWN_TOKEN_OPERATIONS]));
    expect(
      operations
        .filter((operation) => operation.public)
        .map(keyOf)
        .sort(),
    ).toEqual([...PUBLIC_OPERATIONS].sort());
    expect(protectedOperations().length).toBeGreaterThan(20);
    expect(adminOperations().length).toBeGreaterThan(5);
  });

  it('marks "(admin)" in the summary of exactly the admin-only operations', () => {
    const saysAdmin = operations.filter((operation) => /\(admin\)/.test(operation.summary)).map(keyOf);
    expect(saysAdmin.sort()).toEqual(adminOperations().map(keyOf).sort());
  });

  it('serves every public operation without a token', async () => {
    for (const operation of operations.filter((o) => o.public)) {
      let answer: Answer;
      cases += 1;
      if (operation.path === '/api/v1/auth/login') {
        answer = await t.request('POST', operation.url, { body: ADMIN });
        tokensUsed.add((answer.body as { token: string }).token);
        expect(answer.status).toBe(200);
      } else if (operation.path === '/api/v1/auth/accept-invite') {
        // The invitation link's token is the credential: a real one logs the invited user in.
        answer = await t.request('POST', operation.url, { body: { token: await invitationToken(), password: 'accepted-password-1' } });
        tokensUsed.add((answer.body as { token: string }).token);
        expect(answer.status).toBe(200);
      } else if (operation.path === '/api/v1/auth/login/mfa') {
        // The mfa_token from the password step is the credential: a made-up one is refused.
        answer = await t.request('POST', operation.url, { body: { mfa_token: 'a-made-up-mfa-token', code: '123456' } });
        expect(answer.status).toBe(401);
        expect(answer.body).toEqual({ error: 'mfa_token is invalid or has expired: log in again' });
      } else if (operation.path === '/api/v1/auth/forgot-password') {
        answer = await t.request('POST', operation.url, { body: { email: agent.email } });
        expect(answer.status).toBe(202);
      } else if (operation.path === '/api/v1/auth/reset-password') {
        // The reset link's token is the credential (e-mailed only: none here), so a made-up one is refused with 400, not 401.
        answer = await t.request('POST', operation.url, { body: { token: 'a-made-up-reset-token', password: 'reset-password-1' } });
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ error: 'token is invalid, expired or already used' });
      } else if (operation.method === 'GET' && operation.path === '/api/webhooks/messaging') {
        answer = await t.request('GET', `${operation.url}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=4711`);
        expect(answer.status).toBe(200);
        expect(answer.text).toBe('4711');
      } else if (operation.method === 'POST' && operation.path === '/api/webhooks/messaging') {
        const payload = JSON.stringify(channelWebhook({ messages: [channelMessage({ from: '16315550001' })] }));
        answer = await t.request('POST', operation.url, {
          payload,
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, APP_SECRET) },
        });
        expect(answer.status).toBe(200);
      } else {
        answer = await t.request(operation.method, operation.url);
        if (answer.status !== 200) throw new Error(describeAnswer(operation, answer));
      }
    }
    cases += 2;
    expect((await t.request('GET', '/api/docs-json')).status).toBe(200);
    expect((await t.request('GET', '/api/docs')).status).toBe(200);
  });

  it('refuses every protected operation without a token, with 401 {error}, and serves it to an admin', async () => {
    for (const operation of protectedOperations()) {
      expectRefusal(operation, await call(operation), 401);
      expectAllowed(operation, await call(operation, `Bearer ${await freshToken(controlAdmin)}`));
    }
  });

  it('refuses every protected operation with a malformed token (401)', async () => {
    const malformed = ['not-a-jwt', 'abc.def.ghi', `${admin.slice(0, -4)}AAAA`, `Basic ${Buffer.from('a:b').toString('base64')}`];
    for (const operation of protectedOperations())
      for (const token of malformed)
        expectRefusal(operation, await call(operation, token.startsWith('Basic') ? token : `Bearer ${token}`), 401);
  });

  it('refuses every protected operation with a token signed with another secret, or unsigned (401)', async () => {
    const otherSecret = await forged({ secret: 'some-other-secret-that-is-long-enough' });
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const unsigned = `${header}.${admin.split('.')[1]}.`;
    tokensUsed.add(unsigned);
    for (const operation of protectedOperations()) {
      expectRefusal(operation, await call(operation, `Bearer ${otherSecret}`), 401);
      expectRefusal(operation, await call(operation, `Bearer ${unsigned}`), 401);
    }
  });

  it('refuses every protected operation with an expired token (401), and accepts the same claims unexpired', async () => {
    const expired = await forged({ claims: { exp: Math.floor(Date.now() / 1000) - 60 } });
    const valid = await forged({ expiresIn: 600 });
    const me = operations.find((o) => keyOf(o) === 'GET /api/v1/me')!;
    expectAllowed(me, await call(me, `Bearer ${valid}`));
    for (const operation of protectedOperations()) expectRefusal(operation, await call(operation, `Bearer ${expired}`), 401);
  });

  it("refuses every protected operation with a deleted user's token, and with a logged-out one (401)", async () => {
    const doomed = await t.createUser({ role: 'admin' });
    const loggedOut = await t.createUser({ role: 'agent' });
    tokensUsed.add(doomed.token).add(loggedOut.token);
    const me = operations.find((o) => keyOf(o) === 'GET /api/v1/me')!;
    expectAllowed(me, await call(me, `Bearer ${doomed.token}`));
    expect((await t.request('DELETE', `/api/v1/users/${doomed.id}`, { token: admin })).status).toBe(204);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: loggedOut.token })).status).toBe(204);
    for (const operation of protectedOperations()) {
      expectRefusal(operation, await call(operation, `Bearer ${doomed.token}`), 401);
      expectRefusal(operation, await call(operation, `Bearer ${loggedOut.token}`), 401);
    }
  });

  it('refuses an agent on every admin operation (403 {error}) and serves the agent everywhere else', async () => {
    for (const operation of protectedOperations()) {
      const token = await freshToken(agent);
      if (adminOperations().includes(operation)) expectRefusal(operation, await call(operation, `Bearer ${token}`), 403);
      else expectAllowed(operation, await call(operation, `Bearer ${token}`));
    }
  });

  /** A stream ticket asked with `token`, as the console asks for one. */
  async function ticketFor(token: string): Promise<string> {
    const asked = await t.request('POST', '/api/v1/events/stream-tickets', { token });
    expect(asked.status).toBe(201);
    tokensUsed.add(asked.body.ticket);
    return asked.body.ticket;
  }

  it("gives the event stream's ticket query parameter the checks of a credential, and never takes an access token in the URL", async () => {
    const stream = operations.find((o) => o.stream);
    expect(stream).toBeDefined();
    const doomed = await t.createUser({ role: 'agent' });
    tokensUsed.add(doomed.token);
    const doomedTicket = await ticketFor(doomed.token);
    expect((await t.request('DELETE', `/api/v1/users/${doomed.id}`, { token: admin })).status).toBe(204);
    const spent = await ticketFor(await freshToken(agent));
    expect((await call(stream!, undefined, `?ticket=${spent}`)).status).toBe(200);
    const ticketKey = createHmac('sha256', SESSION_SECRET).update('team-inbox stream ticket').digest();
    const real = JSON.parse(Buffer.from(spent.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    const bad = {
      malformed: 'not-a-jwt',
      'another secret': await forged({ secret: 'some-other-secret-that-is-long-enough' }),
      'an access token': await freshToken(agent),
      expired: new JwtService({ secret: ticketKey }).sign({ ...real, jti: 'expired-one', exp: Math.floor(Date.now() / 1000) - 60 }),
      'used already': spent,
      'a deleted user': doomedTicket,
      empty: '',
    };
    for (const [what, ticket] of Object.entries(bad)) {
      const answer = await call(stream!, undefined, `?ticket=${encodeURIComponent(ticket)}`);
      if (answer.status !== 401) throw new Error(`ticket of ${what}: ${describeAnswer(stream!, answer)}`);
      expect(Object.keys(answer.body as object)).toEqual(['error']);
    }
    const inUrl = await call(stream!, undefined, `?access_token=${await freshToken(agent)}`);
    expect(inUrl.status).toBe(401);
    const good = await call(stream!, undefined, `?ticket=${await ticketFor(await freshToken(agent))}`);
    expect(good.status).toBe(200);
    expect(good.headers['content-type']).toMatch(/^text\/event-stream/);
  });

  /** A new API token of the user whose session `token` is. */
  async function apiTokenOf(token: string): Promise<{ id: string; token: string }> {
    const created = await t.request('POST', '/api/v1/api-tokens', { token, body: { name: `access ${cases}` } });
    expect(created.status).toBe(201);
    tokensUsed.add(created.body.token);
    return { id: created.body.id, token: created.body.token };
  }

  it("serves an admin's API token wherever an admin is served, except the operations on the account's own credentials (403)", async () => {
    const { token } = await apiTokenOf(await freshToken(controlAdmin));
    const sessionOnly = protectedOperations()
      .filter((operation) => operation.sessionOnly)
      .map(keyOf);
    expect(sessionOnly.sort()).toEqual(
      [
        'DELETE /api/v1/api-tokens/{id}',
        'DELETE /api/v1/me/2fa',
        'PATCH /api/v1/me',
        'POST /api/v1/api-tokens',
        'POST /api/v1/auth/logout',
        'POST /api/v1/me/2fa',
        'POST /api/v1/me/2fa/enable',
        'PATCH /api/v1/users/{id}',
        'POST /api/v1/users',
        'POST /api/v1/users/{id}/invite',
        'DELETE /api/v1/users/{id}/2fa',
        'POST /api/v1/users/{id}/unlock',
      ].sort(),
    );
    for (const operation of protectedOperations()) {
      if (operation.sessionOnly) expectRefusal(operation, await call(operation, `Bearer ${token}`), 403);
      else expectAllowed(operation, await call(operation, `Bearer ${token}`));
    }
  });

  it("refuses an agent's API token on every admin operation (403), and serves it everywhere else but the session-only ones", async () => {
    const { token } = await apiTokenOf(await freshToken(agent));
    for (const operation of protectedOperations()) {
      if (adminOperations().includes(operation) || operation.sessionOnly)
        expectRefusal(operation, await call(operation, `Bearer ${token}`), 403);
      else expectAllowed(operation, await call(operation, `Bearer ${token}`));
    }
  });

  it('refuses every protected operation with a revoked, an expired or a made-up API token (401)', async () => {
    const session = await freshToken(controlAdmin);
    const revoked = await apiTokenOf(session);
    expect((await t.request('DELETE', `/api/v1/api-tokens/${revoked.id}`, { token: session })).status).toBe(204);
    const expired = await apiTokenOf(session);
    await t.sql(`UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
      expired.id.replace(/^tok_(\w{8})(\w{4})(\w{4})(\w{4})(\w{12})$/, '$1-$2-$3-$4-$5'),
    ]);
    const madeUp = `tinbox_${'A'.repeat(43)}`;
    const me = operations.find((o) => keyOf(o) === 'GET /api/v1/me')!;
    // The expiry is read from the database again within seconds (each instance keeps a token's row briefly).
    await eventually(async () => expectRefusal(me, await call(me, `Bearer ${expired.token}`), 401));
    for (const operation of protectedOperations())
      for (const token of [revoked.token, expired.token, madeUp]) expectRefusal(operation, await call(operation, `Bearer ${token}`), 401);
  });

  it('takes a stream ticket on the event stream only: everywhere else it is no credential (401)', async () => {
    for (const operation of protectedOperations().filter((o) => !o.stream)) {
      const ticket = await ticketFor(await freshToken(controlAdmin));
      expectRefusal(operation, await call(operation, undefined, `${operation.url.includes('?') ? '&' : '?'}ticket=${ticket}`), 401);
      expectRefusal(operation, await call(operation, `Bearer ${ticket}`), 401);
    }
  });

  it('serves GET /api/v1/media/{id} to a valid signed URL without a token, and only that route, and refuses a forged or expired one (401)', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const boundary = 'access-test-boundary';
    const token = await freshToken(agent);
    const uploaded = await t.request('POST', '/api/v1/media', {
      token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
        png,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(uploaded.status).toBe(201);
    const { id: conversationId } = await customerWrites(t, { appSecret: APP_SECRET });
    const sent = await t.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
      token,
      body: { type: 'image', image: { media_id: uploaded.body.id } },
    });
    const url = sent.body.media?.url as string;
    const query = url.slice(url.indexOf('?'));
    cases += 5;
    const signed = await t.request('GET', url);
    expect(signed.status).toBe(200);
    expect(signed.headers['content-type']).toBe('image/png');
    for (const refused of [
      url.replace(/signature=[\w-]+/, 'signature=AAAA'),
      url.replace(/expires=\d+/, 'expires=1'),
      `/api/v1/media/med_${'0'.repeat(32)}${query}`,
    ]) {
      const answer = await t.request('GET', refused);
      expect(answer.status).toBe(401);
      expect(Object.keys(answer.body as object)).toEqual(['error']);
    }
    // A signature is no credential anywhere else.
    expect((await t.request('GET', `/api/v1/me${query}`)).status).toBe(401);
  });

  it("answers 404 for another user's notification, and lets its owner read it", async () => {
    const owner = await t.createUser({ role: 'agent' });
    const other = await t.createUser({ role: 'agent' });
    tokensUsed.add(owner.token).add(other.token);
    const { id: conversationId } = await customerWrites(t, { appSecret: APP_SECRET });
    const assigned = await t.request('PATCH', `/api/v1/conversations/${conversationId}`, { token: admin, body: { assigned_to: owner.id } });
    expect(assigned.status).toBe(200);
    const mine = await eventually(async () => {
      const list = await t.request('GET', '/api/v1/notifications', { token: owner.token });
      expect(list.body.data).toHaveLength(1);
      return list.body.data[0] as { id: string };
    });
    cases += 5;
    expect((await t.request('GET', '/api/v1/notifications', { token: other.token })).body.data).toEqual([]);
    const foreign = await t.request('POST', `/api/v1/notifications/${mine.id}/read`, { token: other.token });
    expect(foreign.status).toBe(404);
    expect(Object.keys(foreign.body as object)).toEqual(['error']);
    expect((await t.request('DELETE', '/api/v1/notifications', { token: other.token })).status).toBe(204);
    const own = await t.request('POST', `/api/v1/notifications/${mine.id}/read`, { token: owner.token });
    expect(own.status).toBe(200);
    expect(own.body.read_at).not.toBeNull();
    // Admins have no more right to another user's notifications than anyone.
    expect((await t.request('POST', `/api/v1/notifications/${mine.id}/read`, { token: admin })).status).toBe(404);
  });

  it('lets every agent mark any conversation read, and only admins list the channel errors', async () => {
    const reader = await t.createUser({ role: 'agent' });
    tokensUsed.add(reader.token);
    const { id: conversationId } = await customerWrites(t, { appSecret: APP_SECRET });
    cases += 4;
    const read = await t.request('POST', `/api/v1/conversations/${conversationId}/read`, { token: reader.token });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(conversationId);
    expect((await t.request('POST', `/api/v1/conversations/${conversationId}/read`, { token: admin })).status).toBe(200);
    const refused = await t.request('GET', '/api/v1/inbound/errors', { token: reader.token });
    expect(refused.status).toBe(403);
    expect(Object.keys(refused.body as object)).toEqual(['error']);
    expect((await t.request('GET', '/api/v1/inbound/errors', { token: admin })).status).toBe(200);
  });

  it('hides every conversation, message, media and event of another inbox from its outsider on every agent route (404 where a route names one)', async () => {
    // A second number, and an agent who works only it; the customer writes to the default inbox's number.
    const other = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: 'Elsewhere', phone_number_id: '300000000000031', access_token: 'elsewhere-token-4c1d' },
    });
    tokensUsed.add('elsewhere-token-4c1d');
    const outsider = await t.createUser({ role: 'agent', inbox_ids: [other.body.id] });
    tokensUsed.add(outsider.token);
    const hiddenText = 'hidden from outsiders 7f3a';
    const { id: conversationId } = await customerWrites(t, { appSecret: APP_SECRET, text: hiddenText });
    const [message] = (await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin })).body.data;
    const [stored] = await t.sql<{ id: string }>(`SELECT id FROM inboxes WHERE is_default`);
    const hiddenInbox = `inb_${stored.id.replace(/-/g, '')}`;
    // Every path parameter that names a hidden thing is filled with it; the rest with unknown ids.
    const hidden: Record<string, string> = {
      conversations: conversationId,
      messages: message.id,
      inboxes: hiddenInbox,
    };
    const agentOperations = protectedOperations().filter((operation) => !adminOperations().includes(operation) && !operation.stream);
    let named = 0;
    for (const operation of agentOperations) {
      const segment = operation.path.split('/{id}')[0].split('/').at(-1)!;
      const namesHidden = operation.path.includes('{id}') && hidden[segment] !== undefined;
      const url = namesHidden ? operation.url.replace(/\{id\}|[a-z]+_0{22}/, hidden[segment]) : operation.url;
      const query = operation.method === 'GET' && !operation.path.includes('{') ? '?q=hidden%20from%20outsiders&limit=100' : '';
      const answer = await call({ ...operation, url }, `Bearer ${await freshToken(outsider)}`, query);
      if (namesHidden) {
        named += 1;
        if (answer.status !== 404) throw new Error(`expected 404; ${describeAnswer(operation, answer)}`);
      }
      for (const secret of [conversationId, message.id, hiddenText]) {
        if (answer.text.includes(secret))
          throw new Error(`${keyOf(operation)} showed ${secret} to an agent of another inbox: ${answer.text}`);
      }
    }
    expect(named).toBeGreaterThanOrEqual(7);
    // The same agent, made a member of the inbox, reads it.
    await t.request('PUT', `/api/v1/inboxes/${hiddenInbox}/members`, {
      token: admin,
      body: {
        user_ids: [...(await t.request('GET', `/api/v1/inboxes/${hiddenInbox}/members`, { token: admin })).body.user_ids, outsider.id],
      },
    });
    expect((await t.request('GET', `/api/v1/conversations/${conversationId}`, { token: await freshToken(outsider) })).status).toBe(200);
  });

  it("keeps Idempotency-Keys per user: another user's same key sends a message of their own", async () => {
    const first = await t.createUser({ role: 'agent' });
    const second = await t.createUser({ role: 'agent' });
    tokensUsed.add(first.token).add(second.token);
    const { id: conversationId } = await customerWrites(t, { appSecret: APP_SECRET });
    const send = (token: string) =>
      t.request('POST', `/api/v1/conversations/${conversationId}/messages`, {
        token,
        headers: { 'idempotency-key': 'shared-key-1' },
        body: { type: 'text', text: 'Hello there' },
      });
    cases += 3;
    const a = await send(first.token);
    expect(a.status).toBe(201);
    const again = await send(first.token);
    expect(again.body.id).toBe(a.body.id);
    const b = await send(second.token);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.sent_by).toBe(second.id);
  });

  it('writes no password, token, webhook secret, channel access token or app secret to the log', async () => {
    // Put every secret through the paths that log: a webhook registration, a send to the Graph
    // API, the channel health probe, a template sync, a signed channel webhook, a failed login, the
    // stream by query, an invitation (its e-mail written off without a provider), a password change.
    await invitationToken();
    const changer = await t.createUser({ role: 'agent' });
    tokensUsed.add(changer.token);
    const changed = await t.request('PATCH', '/api/v1/me', {
      token: changer.token,
      body: { password: 'changed-password-secret-9', current_password: changer.password },
    });
    expect(changed.status).toBe(200);
    tokensUsed.add(changed.body.token as string);
    const registered = await t.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'], secret: WEBHOOK_SECRET },
    });
    expect(registered.status).toBe(201);
    const { id: conversationId, phone } = await customerWrites(t, { appSecret: APP_SECRET });
    expect(
      (await t.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: admin, body: { type: 'text', text: 'Hi' } }))
        .status,
    ).toBe(201);
    await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(1));
    expect(graph.sendsTo(phone)[0].authorization).toBe(`Bearer ${GRAPH_TOKEN}`);
    expect((await t.request('GET', '/api/health/messaging')).status).toBe(200);
    expect((await t.request('POST', '/api/v1/templates/sync', { token: admin })).status).toBe(200);
    expect(graph.templateRequests().at(-1)?.authorization).toBe(`Bearer ${GRAPH_TOKEN}`);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: ADMIN.email, password: `${ADMIN.password}x` } })).status).toBe(
      401,
    );
    const stream = operations.find((o) => o.stream)!;
    expect((await call(stream, undefined, `?ticket=${await ticketFor(admin)}`)).status).toBe(200);
    expect(
      (await t.request('GET', `/api/webhooks/messaging?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`)).status,
    ).toBe(200);

    const secrets: Record<string, string> = {
      'the admin password': ADMIN.password,
      'a user password': agent.password,
      'a changed password': 'changed-password-secret-9',
      'the session secret': SESSION_SECRET,
      'the webhook secret': WEBHOOK_SECRET,
      MESSAGING_ACCESS_TOKEN: GRAPH_TOKEN,
      MESSAGING_APP_SECRET: APP_SECRET,
      MESSAGING_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
    };
    [...linkTokens].forEach((token, index) => {
      secrets[`invitation link token ${index + 1}`] = token;
    });
    [...tokensUsed].filter(Boolean).forEach((token, index) => {
      secrets[`token ${index + 1}`] = token;
      // The signature alone is what makes a token a credential.
      const signature = token.split('.')[2];
      if (signature) secrets[`the signature of token ${index + 1}`] = signature;
    });
    const lines = t.logs.map((line) => JSON.stringify(line));
    // Positive control: the scan sees the requests that carried the secrets.
    expect(lines.some((line) => line.includes('/api/v1/events/stream?ticket=[redacted]'))).toBe(true);
    expect(lines.length).toBeGreaterThan(100);
    const leaks = Object.entries(secrets).flatMap(([what, value]) =>
      lines.filter((line) => line.includes(value)).map((line) => `${what} in ${line.slice(0, 300)}`),
    );
    process.stdout.write(`access: scanned ${lines.length} log lines for ${Object.keys(secrets).length} secrets\n`);
    expect(leaks).toEqual([]);
  });
});

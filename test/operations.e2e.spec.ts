import { ADMIN, startTestApp, TestApp } from './support/test-app';

const PUBLIC_API_PATHS = [
  '/api/v1/auth/login',
  '/api/v1/auth/login/mfa',
  '/api/v1/auth/accept-invite',
  '/api/v1/auth/forgot-password',
  '/api/v1/auth/reset-password',
];

describe('request ids and logs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers with the caller’s x-request-id, or a new one, and logs each request with it', async () => {
    const given = await t.request('GET', '/api/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const fresh = await t.request('GET', '/api/health');
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const line = t.logs.find((l) => l.msg === 'request completed' && l.reqId === 'abc-123');
    expect(line).toMatchObject({ level: 30, status: 200, req: { method: 'GET', url: '/api/health' } });
  });

  it('replaces an x-request-id that could forge log lines', async () => {
    const answer = await t.request('GET', '/api/health', { headers: { 'x-request-id': 'a b\nlevel:60' } });
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes no password, token or secret in any log line', async () => {
    const token = await t.login(ADMIN.email, ADMIN.password);
    await t.request('GET', '/api/v1/me', { token });
    await t.request('GET', `/api/v1/me?access_token=${token}`);
    await t.request('POST', '/api/v1/auth/login', { body: { email: ADMIN.email, password: 'a-wrong-password-xyz' } });
    const everything = JSON.stringify(t.logs);
    expect(t.logs.length).toBeGreaterThan(3);
    // The lines that could carry them were written.
    const completed = t.logs
      .filter((line) => line.msg === 'request completed')
      .map((line) => `${(line.req as { method: string; url: string }).method} ${(line.req as { url: string }).url} ${String(line.status)}`);
    expect(completed).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/login 200',
        'GET /api/v1/me 200',
        'GET /api/v1/me?access_token=[redacted] 401',
        'POST /api/v1/auth/login 401',
      ]),
    );
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(ADMIN.password);
    expect(everything).not.toContain('a-wrong-password-xyz');
    expect(everything).not.toContain(t.config.sessionSecret);
  });

  it('sends security headers', async () => {
    const answer = await t.request('GET', '/api/health');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['strict-transport-security']).toMatch(/max-age=/);
    expect(answer.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(answer.headers['content-security-policy']).toBeDefined();
  });

  it('sends no CORS headers when CORS_ORIGIN is unset', async () => {
    const answer = await t.request('GET', '/api/health', { headers: { origin: 'https://app.example.com' } });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS (CORS_ORIGIN set)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { CORS_ORIGIN: 'https://app.example.com' } });
  });
  afterAll(() => t.close());

  it('allows the configured origin, preflight included', async () => {
    const preflight = await t.request('OPTIONS', '/api/v1/me', {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const actual = await t.request('GET', '/api/health', { headers: { origin: 'https://app.example.com' } });
    expect(actual.headers['access-control-allow-origin']).toBe('https://app.example.com');
  });

  it('does not allow another origin', async () => {
    const answer = await t.request('GET', '/api/health', { headers: { origin: 'https://evil.example.net' } });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(
      (await t.request('GET', '/api/health', { headers: { origin: 'https://app.example.com' } })).headers['access-control-allow-origin'],
    ).toBe('https://app.example.com');
  });
});

describe('OpenAPI document', () => {
  let t: TestApp;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document read as data
  let doc: any;
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.request('GET', '/api/docs-json')).body;
  });
  afterAll(() => t.close());

  it('serves the Swagger UI at /api/docs', async () => {
    const answer = await t.request('GET', '/api/docs');
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('swagger');
  });

  it('lists Authentication first and Operations last, every tag an operation uses declared, /metrics under Operations', () => {
    const declared = (doc.tags as { name: string }[]).map((tag) => tag.name);
    expect(declared[0]).toBe('Authentication');
    expect(declared[declared.length - 1]).toBe('Operations');
    const used = new Set(
      Object.values(doc.paths as Record<string, Record<string, { tags?: string[] }>>).flatMap((methods) =>
        Object.values(methods).flatMap((operation) => operation.tags ?? []),
      ),
    );
    expect([...used].filter((tag) => !declared.includes(tag))).toEqual([]);
    expect(doc.paths['/metrics'].get.tags).toEqual(['Operations']);
  });

  it('lists every endpoint', () => {
    const operations = Object.entries(doc.paths as Record<string, object>).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'POST /api/v1/auth/login',
        'POST /api/v1/auth/logout',
        'POST /api/v1/auth/accept-invite',
        'POST /api/v1/auth/forgot-password',
        'POST /api/v1/auth/reset-password',
        'GET /api/v1/me',
        'GET /api/v1/media/{id}',
        'GET /api/v1/messages/search',
        'PATCH /api/v1/me',
        'GET /api/v1/users',
        'POST /api/v1/users',
        'GET /api/v1/users/{id}',
        'PATCH /api/v1/users/{id}',
        'DELETE /api/v1/users/{id}',
        'POST /api/v1/users/{id}/invite',
        'GET /api/health',
        'GET /api/health/db',
        'GET /api/health/messaging',
        'GET /api/health/ready',
        'GET /api/health/redis',
        'GET /metrics',
        'GET /api/v1/contacts',
        'POST /api/v1/contacts',
        'GET /api/v1/contacts/{id}',
        'PATCH /api/v1/contacts/{id}',
        'DELETE /api/v1/contacts/{id}',
        'POST /api/v1/contacts/{id}/block',
        'POST /api/v1/contacts/{id}/merge',
        'POST /api/v1/contacts/{id}/unblock',
        'POST /api/v1/contacts/import',
        'GET /api/v1/contacts/export',
        'GET /api/v1/canned-responses',
        'POST /api/v1/canned-responses',
        'GET /api/v1/canned-responses/{id}',
        'PATCH /api/v1/canned-responses/{id}',
        'DELETE /api/v1/canned-responses/{id}',
        'GET /api/v1/conversations',
        'POST /api/v1/conversations',
        'GET /api/v1/conversations/counts',
        'GET /api/v1/conversations/{id}',
        'PATCH /api/v1/conversations/{id}',
        'GET /api/v1/conversations/{id}/messages',
        'POST /api/v1/conversations/{id}/messages',
        'POST /api/v1/conversations/{id}/read',
        'POST /api/v1/conversations/{id}/typing',
        'POST /api/v1/conversations/{id}/notes',
        'GET /api/v1/inboxes',
        'POST /api/v1/inboxes',
        'GET /api/v1/inboxes/channel-webhook',
        'GET /api/v1/inboxes/{id}',
        'PATCH /api/v1/inboxes/{id}',
        'DELETE /api/v1/inboxes/{id}',
        'POST /api/v1/inboxes/{id}/test',
        'GET /api/v1/inboxes/{id}/members',
        'PUT /api/v1/inboxes/{id}/members',
        'GET /api/v1/labels',
        'POST /api/v1/labels',
        'GET /api/v1/teams',
        'POST /api/v1/teams',
        'PATCH /api/v1/teams/{id}',
        'DELETE /api/v1/teams/{id}',
        'GET /api/v1/automation-rules',
        'POST /api/v1/automation-rules',
        'GET /api/v1/automation-rules/{id}',
        'PATCH /api/v1/automation-rules/{id}',
        'DELETE /api/v1/automation-rules/{id}',
        'GET /api/v1/automation-rules/{id}/runs',
        'GET /api/v1/campaigns',
        'POST /api/v1/campaigns',
        'POST /api/v1/campaigns/preview',
        'GET /api/v1/campaigns/{id}',
        'PATCH /api/v1/campaigns/{id}',
        'DELETE /api/v1/campaigns/{id}',
        'POST /api/v1/campaigns/{id}/schedule',
        'POST /api/v1/campaigns/{id}/pause',
        'POST /api/v1/campaigns/{id}/resume',
        'POST /api/v1/campaigns/{id}/cancel',
        'GET /api/v1/campaigns/{id}/recipients',
        'GET /api/v1/campaigns/{id}/recipients.csv',
        'GET /api/v1/macros',
        'POST /api/v1/macros',
        'PATCH /api/v1/macros/{id}',
        'DELETE /api/v1/macros/{id}',
        'POST /api/v1/conversations/{id}/macros/{macro_id}',
        'GET /api/v1/assignment/agents',
        'POST /api/v1/media',
        'PATCH /api/v1/labels/{id}',
        'DELETE /api/v1/labels/{id}',
        'GET /api/v1/notifications',
        'GET /api/v1/reports/conversations.csv',
        'GET /api/v1/reports/pricing',
        'GET /api/v1/reports/summary',
        'GET /api/v1/notifications/unread-count',
        'DELETE /api/v1/notifications',
        'POST /api/v1/notifications/read',
        'POST /api/v1/notifications/{id}/read',
        'GET /api/v1/webhooks',
        'POST /api/v1/webhooks',
        'GET /api/v1/webhooks/{id}',
        'PATCH /api/v1/webhooks/{id}',
        'DELETE /api/v1/webhooks/{id}',
        'GET /api/v1/webhooks/{id}/deliveries',
        'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
        'GET /api/v1/events/stream',
        'GET /api/webhooks/messaging',
        'POST /api/webhooks/messaging',
        'GET /api/v1/inbound/failed',
        'POST /api/v1/events/stream-tickets',
        'POST /api/v1/inbound/failed/{id}/replay',
        'GET /api/v1/inbound/errors',
        'GET /api/v1/templates',
        'GET /api/v1/templates/{id}',
        'POST /api/v1/templates/sync',
        'POST /api/v1/auth/login/mfa',
        'POST /api/v1/users/{id}/unlock',
        'POST /api/v1/me/2fa',
        'POST /api/v1/me/2fa/enable',
        'DELETE /api/v1/me/2fa',
        'DELETE /api/v1/users/{id}/2fa',
        'GET /api/v1/api-tokens',
        'POST /api/v1/api-tokens',
        'DELETE /api/v1/api-tokens/{id}',
        'GET /api/v1/audit-log',
      ].sort(),
    );
  });

  it('documents a success answer and the {error} answers of every operation', () => {
    for (const [path, methods] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>,
    )) {
      for (const [method, operation] of Object.entries(methods)) {
        const codes = Object.keys(operation.responses);
        expect({ op: `${method} ${path}`, success: codes.some((c) => c.startsWith('2')) }).toEqual({
          op: `${method} ${path}`,
          success: true,
        });
        for (const code of codes.filter((c) => Number(c) >= 400)) {
          expect(JSON.stringify(operation.responses[code].content)).toContain('#/components/schemas/ErrorBody');
        }
        // The public ones take no token (login, and the links' tokens in the body): only the rate limit.
        if (path.startsWith('/api/v1/'))
          expect({ op: `${method} ${path}`, codes }).toEqual({
            op: `${method} ${path}`,
            codes: expect.arrayContaining(PUBLIC_API_PATHS.includes(path) ? ['429'] : ['401', '429']),
          });
      }
    }
  });
});

describe('graceful shutdown', () => {
  it('lets a request in flight finish when the app closes', async () => {
    const t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${await t.app.getUrl()}/api/v1/auth/login`.replace('[::1]', '127.0.0.1');
    const arrived = new Promise((resolve) => t.app.getHttpServer().once('request', resolve));
    const inFlight = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    await arrived;
    const closing = t.close();
    const answer = await inFlight;
    await closing;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { token?: string }).token).toEqual(expect.any(String));
  });
});

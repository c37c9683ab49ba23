import { connect } from 'node:net';
import { DataSource } from 'typeorm';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

describe('error answers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers an unknown route with 404 and the error body alone', async () => {
    const answer = await t.request('GET', '/api/v1/nothing-here', { token: await t.adminToken() });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: expect.stringContaining('/api/v1/nothing-here') });
  });

  it('answers malformed JSON with 400', async () => {
    const answer = await t.request('POST', '/api/v1/auth/login', {
      payload: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Body is not valid JSON' });
  });

  it('answers a JSON body that is not an object with 400', async () => {
    const answer = await t.request('POST', '/api/v1/auth/login', { payload: '[1,2]', headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Body must be a JSON object' });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const payload = JSON.stringify({ email: 'a'.repeat(1024 * 1024), password: 'x' });
    const answer = await t.request('POST', '/api/v1/auth/login', { payload, headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: 'Body is larger than this endpoint accepts' });
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x']])(
    'answers a %s body with 415',
    async (contentType) => {
      const answer = await t.request('POST', '/api/v1/auth/login', {
        payload: 'email=a&password=b',
        headers: { 'content-type': contentType },
      });
      expect(answer.status).toBe(415);
      expect(answer.body).toEqual({ error: 'Content-Type must be application/json' });
    },
  );

  it('answers a failure inside with 500 "Internal server error" only, and logs it with the request id', async () => {
    const dataSource = t.app.get(DataSource);
    await dataSource.query('ALTER TABLE users RENAME TO users_away');
    try {
      const answer = await t.request('GET', '/api/v1/users', { token: await t.adminToken(), headers: { 'x-request-id': 'req-500-test' } });
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: 'Internal server error' });
      expect(answer.text).not.toMatch(/users|relation|select|stack/i);
      expect(answer.headers['x-request-id']).toBe('req-500-test');
      const logged = t.logs.find((line) => line.msg === 'request failed');
      expect(logged).toMatchObject({ level: 50, reqId: 'req-500-test', err: { message: expect.stringContaining('users') } });
    } finally {
      await dataSource.query('ALTER TABLE users_away RENAME TO users');
    }
  });

  describe('refusals Fastify makes before any route runs', () => {
    it('answers a path segment over 100 characters with 414 and the error body alone', async () => {
      const answer = await t.request('GET', `/api/v1/contacts/ct_${'a'.repeat(120)}`, { token: await t.adminToken() });
      expect(answer.status).toBe(414);
      expect(answer.body).toEqual({ error: 'A path segment is longer than 100 characters' });
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['x-request-id']).toEqual(expect.any(String));
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toMatch(/default-src 'self'/);
    });

    it('still routes a path segment of 100 characters (an unknown id: 404)', async () => {
      const answer = await t.request('GET', `/api/v1/contacts/ct_${'a'.repeat(97)}`, { token: await t.adminToken() });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: 'Contact not found' });
    });

    it.each([['/api/v1/contacts/%E0%A4%A'], ['/api/v1/nothing-here/%zz']])('answers bad percent-encoding (%s) with 400', async (url) => {
      const answer = await t.request('GET', url, { token: await t.adminToken() });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'The URL holds a percent sign that does not start a valid percent-encoded UTF-8 sequence' });
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    });

    it('refuses a JSON body declared in a charset other than UTF-8 with 415, and takes one declared UTF-8', async () => {
      const body = JSON.stringify({ email: 'a@b.example', password: 'x' });
      const utf16 = await t.request('POST', '/api/v1/auth/login', {
        payload: Buffer.from(body, 'utf16le'),
        headers: { 'content-type': 'application/json; charset=utf-16' },
      });
      expect(utf16.status).toBe(415);
      expect(utf16.body).toEqual({ error: 'JSON bodies are UTF-8: charset=utf-16 is not taken' });
      const utf8 = await t.request('POST', '/api/v1/auth/login', {
        payload: body,
        headers: { 'content-type': 'application/json; charset=UTF-8' },
      });
      expect(utf8.status).toBe(401);
    });

    it('answers an empty JSON body with 400', async () => {
      const answer = await t.request('POST', '/api/v1/auth/login', { payload: '', headers: { 'content-type': 'application/json' } });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'Body must not be empty when Content-Type is application/json' });
    });

    it('answers a body shorter than its Content-Length with 400', async () => {
      const answer = await t.request('POST', '/api/v1/auth/login', {
        payload: '{}',
        headers: { 'content-type': 'application/json', 'content-length': '10' },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'Content-Length does not match the body' });
    });

    it('answers a prototype-poisoning body as invalid JSON', async () => {
      const answer = await t.request('POST', '/api/v1/auth/login', {
        payload: '{"__proto__": {"admin": true}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'Body is not valid JSON' });
    });

    it.each([
      ['arrays', `{"email":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
      ['objects', `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`],
    ])('answers a body nested 20,000+ levels deep (%s) with 400, not a stack overflow', async (_kind, payload) => {
      const answer = await t.request('POST', '/api/v1/contacts', {
        token: await t.adminToken(),
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'Body nests arrays and objects deeper than 64 levels' });
    });

    it('still validates a body nested 64 levels deep (positive control)', async () => {
      const answer = await t.request('POST', '/api/v1/contacts', {
        token: await t.adminToken(),
        payload: `{"phone":"+16315551234","name":${'['.repeat(63)}${']'.repeat(63)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(/^name /);
    });

    describe('over a real connection (what Node’s HTTP parser refuses)', () => {
      let port: number;
      beforeAll(async () => {
        await t.app.listen(0, '127.0.0.1');
        port = (t.app.getHttpServer().address() as { port: number }).port;
      });
      /** Sends raw bytes and answers everything the server wrote until it closed the connection. */
      const exchange = (request: string) =>
        new Promise<{ head: string; body: unknown }>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1');
          let received = '';
          socket.on('data', (chunk) => (received += chunk.toString('utf8')));
          socket.on('error', reject);
          socket.on('close', () => {
            const [head, body] = received.split('\r\n\r\n');
            resolve({ head, body: JSON.parse(body) });
          });
          socket.write(request);
        });

      it('answers headers over 16 KiB with 431 and the error body alone', async () => {
        const answer = await exchange(`GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
        expect(answer.head).toMatch(/^HTTP\/1\.1 431 /);
        expect(answer.head).toMatch(/content-type: application\/json/i);
        expect(answer.body).toEqual({ error: 'The request line and headers are larger than the server accepts (16 KiB)' });
      });

      it('answers a header holding a NUL byte with 400 and the error body alone', async () => {
        const answer = await exchange('GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Note: a\u0000b\r\n\r\n');
        expect(answer.head).toMatch(/^HTTP\/1\.1 400 /);
        expect(answer.body).toEqual({ error: 'The request is not valid HTTP' });
      });

      it('answers a request under those limits normally (positive control)', async () => {
        const answer = await exchange(
          `GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(1024)}\r\nConnection: close\r\n\r\n`,
        );
        expect(answer.head).toMatch(/^HTTP\/1\.1 200 /);
        expect(answer.body).toEqual({ status: 'ok' });
      });

      it('answers a long path segment with 414 there too', async () => {
        const answer = await exchange(`GET /api/v1/contacts/${'a'.repeat(200)} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
        expect(answer.head).toMatch(/^HTTP\/1\.1 414 /);
        expect(answer.body).toEqual({ error: 'A path segment is longer than 100 characters' });
      });
    });
  });

  describe('characters PostgreSQL cannot store', () => {
    const REFUSED = 'must not contain NUL characters or unpaired surrogates';
    let phone = 16315552000;
    const newPhone = () => `+${(phone += 1)}`;

    it('refuses a NUL in a body field with 400 naming the field, and stores the same body without it', async () => {
      const admin = await t.adminToken();
      const refused = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: newPhone(), name: 'Ana\u0000Souza' } });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: `name ${REFUSED}` });
      const stored = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: newPhone(), name: 'Ana Souza' } });
      expect(stored.status).toBe(201);
    });

    it('refuses a NUL in an array item with its index in the path', async () => {
      const admin = await t.adminToken();
      const refused = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: newPhone(), tags: ['vip', 'x\u0000'] } });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: `tags.1 ${REFUSED}` });
    });

    it('refuses a NUL deep in a nested field with its whole path, and sends the same message without it', async () => {
      const conversation = await customerWrites(t);
      const message = (text: string) => ({
        type: 'template',
        template: {
          name: 'order_update',
          language: 'en_US',
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text },
                { type: 'text', text: 'A-1001' },
              ],
            },
          ],
        },
      });
      const url = `/api/v1/conversations/${conversation.id}/messages`;
      const refused = await t.request('POST', url, { token: await t.adminToken(), body: message('order\u0000 42') });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: `template.components.0.parameters.0.text ${REFUSED}` });
      const sent = await t.request('POST', url, { token: await t.adminToken(), body: message('order 42') });
      expect(sent.status).toBe(201);
    });

    it('refuses a NUL in an object key', async () => {
      const refused = await t.request('POST', '/api/v1/contacts', {
        token: await t.adminToken(),
        payload: `{"phone":"${newPhone()}","na\\u0000me":"x"}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: `Body ${REFUSED}` });
    });

    it('refuses a NUL in a query parameter with 400 naming it, and answers the same query without it', async () => {
      const admin = await t.adminToken();
      const refused = await t.request('GET', '/api/v1/contacts?q=Ana%00', { token: admin });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: `q ${REFUSED}` });
      const answered = await t.request('GET', '/api/v1/contacts?q=Ana', { token: admin });
      expect(answered.status).toBe(200);
    });

    it('refuses an unpaired surrogate (which jsonb refuses) but stores a surrogate pair (an emoji)', async () => {
      const admin = await t.adminToken();
      const send = (name: string) =>
        t.request('POST', '/api/v1/contacts', {
          token: admin,
          payload: `{"phone":"${newPhone()}","name":"${name}"}`,
          headers: { 'content-type': 'application/json' },
        });
      const refused = await send('Ana \\ud83d');
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: `name ${REFUSED}` });
      const stored = await send('Ana \\ud83d\\ude00');
      expect(stored.status).toBe(201);
      expect(stored.body.name).toBe('Ana 😀');
    });

    it('answers an id holding a NUL in the path like any unknown id: 404', async () => {
      const answer = await t.request('GET', '/api/v1/contacts/ct_%00', { token: await t.adminToken() });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: 'Contact not found' });
    });
  });
});

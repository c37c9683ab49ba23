import { eventually, channelMessage, channelWebhook } from '../support/channel';
import { describeWithPostgres, TEST_DATABASE_URL } from '../support/environment';
import { FakeGraphApi } from '../support/fake-graph-api';
import { customerWrites } from '../support/inbox';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The database cut off from a running service and given back (a TCP proxy of the test's own
 * between the service and PostgreSQL): meanwhile the probes and the channel webhook answer 503 and
 * no API route answers 500; afterwards the service reconnects by itself, stores what the channel
 * sends again, and the work recorded before the cut goes out. PostgreSQL only: PGlite is in process.
 */
describeWithPostgres('a database outage (PostgreSQL only: the connection cut by a TCP proxy)', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let graph: FakeGraphApi;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let admin: string;
  let webhookId: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(TEST_DATABASE_URL!);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    graph = await FakeGraphApi.start();
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      database: { ...database, env: { DATABASE_URL: proxy.rewrite(database.env.DATABASE_URL) } },
      env: {
        ...graph.channelEnv,
        // The second attempts fall due during the cut: they must wait for the database.
        MESSAGING_RETRY_SCHEDULE: '2s,2s,2s,2s,2s',
        WEBHOOK_RETRY_SCHEDULE: '2s,2s,2s,2s,2s',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      },
    });
    admin = await t.adminToken();
    const registered = await t.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: receiver.url('/outage'), events: ['message.received'], secret: 'outage-webhook-secret-1234' },
    });
    expect(registered.status).toBe(201);
    webhookId = registered.body.id as string;
  });
  afterAll(async () => {
    await t.close();
    await proxy.close();
    await database.drop();
    await graph.close();
    await receiver.close();
  });

  const messageStatus = async (conversationId: string, messageId: string) => {
    const thread = await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin });
    return (thread.body.data as { id: string; status: string }[]).find((m) => m.id === messageId)?.status;
  };

  it('answers 503 (never 500) while the database is cut, and reconnects and catches up once it is back', async () => {
    // Work recorded before the cut, whose first attempt fails: its retry falls due during the cut.
    const before = await customerWrites(t, { text: 'before the cut' });
    receiver.script('/outage', { status: 503 });
    graph.failNext(before.phone, { status: 503, body: { error: { message: 'Service unavailable', code: 2 } } });
    const reply = await t.request('POST', `/api/v1/conversations/${before.id}/messages`, {
      token: admin,
      body: { type: 'text', text: 'queued before the cut' },
    });
    expect(reply.status).toBe(201);
    await eventually(async () => {
      const deliveries = await t.request('GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token: admin });
      expect(deliveries.body.data).toEqual([expect.objectContaining({ attempts: 1, last_status_code: 503, status: 'pending' })]);
      const [message] = await t.sql<{ attempts: number; status: string }>('SELECT attempts, status FROM messages WHERE text = $1', [
        'queued before the cut',
      ]);
      expect(message).toEqual({ attempts: 1, status: 'queued' });
    });
    expect((await t.request('GET', '/api/health/db')).status).toBe(200);
    expect((await t.request('GET', '/api/health/ready')).status).toBe(200);

    proxy.cut();
    const db = await t.request('GET', '/api/health/db');
    expect(db.status).toBe(503);
    expect(db.body).toEqual({ error: expect.any(String) });
    expect((await t.request('GET', '/api/health/ready')).status).toBe(503);

    // The channel is told to retry.
    const inbound = await t.request('POST', '/api/webhooks/messaging', {
      body: channelWebhook({ messages: [channelMessage({ from: before.phone.slice(1), payload: { body: 'during the cut' } })] }),
    });
    expect(inbound.status).toBe(503);
    expect(inbound.body).toEqual({ error: expect.any(String) });

    // No route of the API answers 500: every GET of the document, and a send.
    const document = (await t.request('GET', '/api/docs-json')).body as { paths: Record<string, Record<string, unknown>> };
    const answers: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      if (!('get' in item) || path.endsWith('/events/stream') || path === '/api/webhooks/messaging') continue;
      const url = path.replace(/\{\w+\}/g, 'x_0000000000000000000000');
      const answer = await t.request('GET', url, { token: admin });
      answers.push(`GET ${path} ${answer.status}`);
      if (answer.status >= 500 && answer.status !== 503) throw new Error(`GET ${url} answered ${answer.status}: ${answer.text}`);
    }
    const during = await t.request('POST', `/api/v1/conversations/${before.id}/messages`, {
      token: admin,
      body: { type: 'text', text: 'refused during the cut' },
    });
    answers.push(`POST /api/v1/conversations/{id}/messages ${during.status}`);
    expect(during.status).toBe(503);
    expect(during.body).toEqual({ error: expect.any(String) });
    // Positive control: the cut is felt by the API, not only by the probes.
    expect(answers.filter((answer) => answer.endsWith(' 503')).length).toBeGreaterThan(5);
    process.stdout.write(`database outage: during the cut ${answers.join(', ')}\n`);

    proxy.restore();
    const restoredAt = Date.now();
    await eventually(async () => expect((await t.request('GET', '/api/health/db')).status).toBe(200), 30_000);
    const healthyMs = Date.now() - restoredAt;
    expect((await t.request('GET', '/api/health/ready')).status).toBe(200);

    // The channel's retry is stored now.
    const retried = await t.request('POST', '/api/webhooks/messaging', {
      body: channelWebhook({ messages: [channelMessage({ from: before.phone.slice(1), payload: { body: 'after the cut' } })] }),
    });
    expect(retried.status).toBe(200);
    const thread = await t.request('GET', `/api/v1/conversations/${before.id}/messages`, { token: admin });
    expect((thread.body.data as { text: string }[]).map((m) => m.text)).toContain('after the cut');

    // The work recorded before the cut goes out.
    await eventually(async () => expect(await messageStatus(before.id, reply.body.id)).toBe('sent'), 30_000);
    expect(graph.sendsTo(before.phone)).toHaveLength(2);
    await eventually(async () => {
      const texts = receiver.received('/outage').map((d) => d.json.data.message.text as string);
      expect(texts.filter((text) => text === 'before the cut')).toHaveLength(2);
      expect(texts).toContain('after the cut');
    }, 30_000);
    const caughtUpMs = Date.now() - restoredAt;
    // Times are printed, not asserted: tests never assert on time.
    process.stdout.write(
      `database outage: /api/health/db 200 ${healthyMs} ms after the restore, the queued send and delivery out ${caughtUpMs} ms after it\n`,
    );
  });
});

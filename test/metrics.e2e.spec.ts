import { MetricsServer } from '../src/metrics/metrics-server';
import { eventually } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { freePort } from './support/redis-server';

const METRICS_TOKEN = 'metrics-token-of-some-length-0123';
const APP_SECRET = 'metrics-test-app-secret';

/** The samples of one series name: each with its labels and value. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const found: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}

describe('metrics', () => {
  let graph: FakeGraphApi;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      env: {
        METRICS_TOKEN,
        MESSAGING_APP_SECRET: APP_SECRET,
        ...graph.channelEnv,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      },
    });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
    await receiver.close();
  });

  const scrape = async () => {
    const answer = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('text/plain');
    return answer.text;
  };

  it('refuses a scrape without the token, or with another one, with 401', async () => {
    expect((await t.request('GET', '/metrics')).status).toBe(401);
    expect((await t.request('GET', '/metrics', { headers: { authorization: 'Bearer not-the-token-of-any-length' } })).status).toBe(401);
    expect((await t.request('GET', '/metrics', { token: admin })).status).toBe(401);
    expect((await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
  });

  it('finds every series with its labels after real traffic', async () => {
    const hook = await t.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: receiver.url('/metrics-hook'), events: ['message.received'], secret: 'a-receiver-secret-of-some-length' },
    });
    expect(hook.status).toBe(201);
    const { id } = await customerWrites(t, { text: 'Hello metrics', appSecret: APP_SECRET });
    await t.request('GET', '/api/v1/conversations?limit=5', { token: admin });
    const sent = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'text', text: 'Hi!' } });
    expect(sent.status).toBe(201);
    await eventually(async () => expect(receiver.received('/metrics-hook')).toHaveLength(1));
    await eventually(async () =>
      expect(samples(await scrape(), 'team_inbox_message_delivery_seconds_count')).toContainEqual({
        labels: { outcome: 'sent' },
        value: 1,
      }),
    );
    const text = await scrape();

    expect(samples(text, 'team_inbox_http_request_duration_seconds_count')).toContainEqual({
      labels: { method: 'GET', route: '/api/v1/conversations', status_code: '200' },
      value: expect.any(Number),
    });
    expect(samples(text, 'team_inbox_http_request_duration_seconds_count')).toContainEqual({
      labels: { method: 'POST', route: '/api/v1/conversations/:id/messages', status_code: '201' },
      value: 1,
    });
    // The bucket edges hold the seed's levels: 200 ms target, 500 ms warning, 1 s critical.
    const edges = samples(text, 'team_inbox_http_request_duration_seconds_bucket').map((s) => s.labels.le);
    expect(edges).toEqual(expect.arrayContaining(['0.2', '0.5', '1']));
    expect(samples(text, 'team_inbox_channel_webhook_duration_seconds_count')).toContainEqual({
      labels: { outcome: 'processed' },
      value: 1,
    });
    await eventually(async () =>
      expect(samples(await scrape(), 'team_inbox_webhook_delivery_attempts_total')).toContainEqual({
        labels: { outcome: 'delivered' },
        value: 1,
      }),
    );
    expect(samples(await scrape(), 'team_inbox_webhook_delivery_seconds_count')).toContainEqual({
      labels: { outcome: 'delivered' },
      value: 1,
    });
    // Every kind of recorded work is counted and timed by the engine, per job and outcome.
    const attempts = samples(await scrape(), 'team_inbox_recorded_work_attempts_total');
    expect(attempts).toContainEqual({ labels: { job: 'message.send', outcome: 'done' }, value: 1 });
    expect(attempts).toContainEqual({ labels: { job: 'webhook.deliver', outcome: 'done' }, value: 1 });
    expect(samples(await scrape(), 'team_inbox_recorded_work_attempt_duration_seconds_count')).toContainEqual({
      labels: { job: 'message.send' },
      value: 1,
    });
    expect(samples(text, 'team_inbox_queue_depth').map((s) => s.labels.queue)).toEqual(
      expect.arrayContaining(['message.send', 'webhook.deliver', 'media.download']),
    );
    expect(samples(text, 'team_inbox_queue_oldest_age_seconds').length).toBeGreaterThan(0);
    expect(samples(text, 'team_inbox_outbox_lag_seconds')).toHaveLength(1);
    expect(samples(text, 'team_inbox_db_query_duration_seconds_count')[0].value).toBeGreaterThan(0);
    expect(
      samples(text, 'team_inbox_db_pool_connections')
        .map((s) => s.labels.state)
        .sort(),
    ).toEqual(['idle', 'total', 'waiting']);
    for (const name of [
      'team_inbox_cpu_cores',
      'team_inbox_memory_limit_bytes',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(samples(text, name)[0]?.value).toBeGreaterThan(0);
    }
  });

  it('labels a request to no route as unmatched, never with its URL', async () => {
    expect((await t.request('GET', '/api/v1/no-such-thing/12345', { token: admin })).status).toBe(404);
    const text = await scrape();
    expect(samples(text, 'team_inbox_http_request_duration_seconds_count')).toContainEqual({
      labels: { method: 'GET', route: 'unmatched', status_code: '404' },
      value: 1,
    });
    expect(text).not.toContain('no-such-thing');
  });

  it('counts a channel webhook refused for its signature as refused', async () => {
    const before = samples(await scrape(), 'team_inbox_channel_webhook_duration_seconds_count').find((s) => s.labels.outcome === 'refused');
    expect((await t.request('POST', '/api/webhooks/messaging', { body: { object: 'whatsapp_business_account', entry: [] } })).status).toBe(
      401,
    );
    const after = samples(await scrape(), 'team_inbox_channel_webhook_duration_seconds_count').find((s) => s.labels.outcome === 'refused');
    expect(after?.value).toBe((before?.value ?? 0) + 1);
  });
});

describe('metrics switched off or on a port of their own', () => {
  it('answers 404 on the main port without METRICS_TOKEN', async () => {
    const t = await startTestApp();
    try {
      const answer = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(answer.status).toBe(404);
      expect((answer.body as { error: string }).error).toContain('METRICS_TOKEN');
      // The API is untouched.
      expect((await t.request('GET', '/api/health')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('serves the metrics on METRICS_PORT without a token, and only them', async () => {
    const t = await startTestApp({ env: { METRICS_PORT: String(await freePort()) } });
    try {
      const port = t.app.get(MetricsServer).port;
      const answer = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('team_inbox_http_request_duration_seconds');
      expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(404);
      expect((await t.request('GET', '/metrics')).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

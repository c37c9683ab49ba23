import { eventually } from '../support/channel';
import { FakeGraphApi } from '../support/fake-graph-api';
import { customerWrites } from '../support/inbox';
import { startTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const EVENTS = 6;
const RECEIVER_FAILURES = 12;
const SENDS = 5;
const GRAPH_FAILURES_PER_SEND = 3;

/**
 * The service's neighbours failing for a while and then recovering: a webhook receiver that answers
 * 500 and 503 before 200, the Graph API that answers 503 before accepting. With short retry
 * schedules every event ends delivered exactly once and every send ends `sent`. Runs on either engine.
 */
describe('a receiver and the Graph API failing, then recovering', () => {
  let graph: FakeGraphApi;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      env: {
        ...graph.channelEnv,
        MESSAGING_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms,200ms',
        WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms,200ms',
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

  it('delivers every event exactly once after the receiver answered 500 and 503 for a while', async () => {
    receiver.script('/flaky', ...Array.from({ length: RECEIVER_FAILURES }, (_, i) => ({ status: i % 2 === 0 ? 500 : 503 })));
    const registered = await t.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: receiver.url('/flaky'), events: ['message.received'], secret: 'recovery-webhook-secret-1234' },
    });
    expect(registered.status).toBe(201);
    const started = Date.now();
    for (let i = 0; i < EVENTS; i += 1) await customerWrites(t, { text: `event ${i}` });

    const deliveries = await eventually(async () => {
      const log = await t.request('GET', `/api/v1/webhooks/${registered.body.id}/deliveries?limit=100`, { token: admin });
      expect(log.body.data).toHaveLength(EVENTS);
      expect(log.body.data.map((d: { status: string }) => d.status)).toEqual(Array(EVENTS).fill('succeeded'));
      return log.body.data as { attempts: number; event_id: string }[];
    }, 30_000);
    const recoveredMs = Date.now() - started;

    const received = receiver.received('/flaky');
    // The receiver answered the scripted failures first, then 200 to everything after them.
    const accepted = received.slice(RECEIVER_FAILURES);
    const acceptedIds = accepted.map((d) => d.headers['webhook-id']);
    expect(new Set(acceptedIds).size).toBe(EVENTS);
    expect(accepted).toHaveLength(EVENTS);
    expect(new Set(acceptedIds)).toEqual(new Set(deliveries.map((d) => d.event_id)));
    expect(accepted.map((d) => d.json.data.message.text).sort()).toEqual(Array.from({ length: EVENTS }, (_, i) => `event ${i}`));
    // Every attempt was counted: the failures and one success per event.
    expect(deliveries.reduce((sum, d) => sum + d.attempts, 0)).toBe(RECEIVER_FAILURES + EVENTS);
    // Every retry carried its event's id: no webhook-id the receiver saw is unknown.
    expect(new Set(received.map((d) => d.headers['webhook-id']))).toEqual(new Set(acceptedIds));
    process.stdout.write(
      `recovery: ${EVENTS} events, ${received.length} delivery attempts (${RECEIVER_FAILURES} refused), all delivered once ${recoveredMs} ms after the first\n`,
    );
  });

  it('sends every queued message once the Graph API stops answering 503, each retried until accepted', async () => {
    const customers = [];
    for (let i = 0; i < SENDS; i += 1) customers.push(await customerWrites(t, { text: `customer ${i}` }));
    for (const { phone } of customers)
      graph.failNext(
        phone,
        ...Array.from({ length: GRAPH_FAILURES_PER_SEND }, () => ({
          status: 503,
          body: { error: { message: 'Service unavailable', code: 2 } },
        })),
      );
    const started = Date.now();
    const replies = [];
    for (const { id } of customers) {
      const reply = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
        token: admin,
        body: { type: 'text', text: 'We are on it' },
      });
      expect(reply.status).toBe(201);
      expect(reply.body.status).toBe('queued');
      replies.push(reply.body as { id: string; conversation_id: string });
    }

    for (const reply of replies)
      await eventually(async () => {
        const thread = await t.request('GET', `/api/v1/conversations/${reply.conversation_id}/messages`, { token: admin });
        expect((thread.body.data as { id: string; status: string }[]).find((m) => m.id === reply.id)?.status).toBe('sent');
      }, 30_000);
    const recoveredMs = Date.now() - started;

    let attempts = 0;
    for (const { phone } of customers) {
      const sends = graph.sendsTo(phone);
      attempts += sends.length;
      // Refused three times, accepted once, never sent again.
      expect(sends).toHaveLength(GRAPH_FAILURES_PER_SEND + 1);
      expect(new Set(sends.map((s) => JSON.stringify(s.body))).size).toBe(1);
    }
    process.stdout.write(
      `recovery: ${SENDS} sends, ${attempts} Graph API attempts (${SENDS * GRAPH_FAILURES_PER_SEND} refused with 503), all sent ${recoveredMs} ms after queueing\n`,
    );
  });
});

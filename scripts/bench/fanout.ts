import autocannon from 'autocannon';
import { join } from 'node:path';
import { startChildServer } from './child-server';
import type { Cleanup } from './cleanup';
import { printGoal } from './report';
import { sleep } from './process';

const REGISTRATIONS = 10;
const GOAL_DELIVERIES_PER_SECOND = 1_000;
const GOAL_P99_MS = 500;
const DRAIN_TIMEOUT_MS = 300_000;

export interface FanOutContext {
  serviceUrl: string;
  token: string;
  events: number;
  cleanup: Cleanup;
}

interface ReceiverStats {
  received: number;
  duplicates: number;
  p50: number;
  p99: number;
  seconds: number;
}

/**
 * Webhook fan-out: REGISTRATIONS receivers (one child process on loopback) subscribed to
 * contact.created, then `events` contacts created through the API as fast as 20 connections go.
 * Every event becomes REGISTRATIONS signed deliveries; the figures are deliveries per second from
 * the first arrival to the last, and event-to-receiver latency (created_at to arrival), which
 * includes the time an event waits in the outbox while the burst is worked through.
 */
export async function benchWebhookFanOut(context: FanOutContext): Promise<void> {
  const receiver = await startChildServer(join(__dirname, 'fanout-receiver.js'), 'fan-out receiver', {}, context.cleanup);
  // Deleted when the bench ends (before the service stops): on a reused bench database, a later
  // run's events would otherwise also go to this run's receivers, long gone, and retry for hours.
  const registrations: string[] = [];
  context.cleanup.defer('fan-out registrations', async () => {
    for (const id of registrations) {
      await fetch(`${context.serviceUrl}/api/v1/webhooks/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${context.token}` },
      });
    }
  });
  for (let i = 0; i < REGISTRATIONS; i++) {
    const response = await fetch(`${context.serviceUrl}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${context.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${receiver.baseUrl}/receiver-${i}`,
        events: ['contact.created'],
        secret: 'bench-webhook-secret-0123456789',
      }),
    });
    if (response.status !== 201)
      throw new Error(
        `registering a webhook answered ${response.status}: ${await response.text()} (the service needs WEBHOOK_ALLOW_PRIVATE_URLS=true)`,
      );
    registrations.push(((await response.json()) as { id: string }).id);
  }

  console.log(
    `\nwebhook fan-out: ${REGISTRATIONS} registrations, ${context.events.toLocaleString('en-US')} events (contacts created through the API) ...`,
  );
  // Numbers new to this run, even on a reused bench database: a random area code per run.
  const areaCode = 200 + Math.floor(Math.random() * 700);
  let phone = 0;
  const result = await autocannon({
    url: `${context.serviceUrl}/api/v1/contacts`,
    connections: 20,
    amount: context.events,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${context.token}`, 'content-type': 'application/json' },
        // A fresh number per request: a duplicate phone is a 409 and records no event.
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ phone: `+1${areaCode}${String(1_000_000 + (phone += 1)).padStart(7, '0')}` }),
        }),
      },
    ],
  });
  const created = result['2xx'];
  const expected = created * REGISTRATIONS;
  console.log(
    `  ${created} events recorded (${result.non2xx} refused) in ${result.duration.toFixed(1)} s; waiting for ${expected.toLocaleString('en-US')} deliveries ...`,
  );

  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  let stats = await readStats(receiver.baseUrl);
  while (stats.received < expected && Date.now() < deadline) {
    await sleep(500);
    stats = await readStats(receiver.baseUrl);
  }
  await sleep(1_000);
  stats = await readStats(receiver.baseUrl);
  const perSecond = stats.seconds > 0 ? stats.received / stats.seconds : 0;
  console.log(
    `  delivered ${stats.received.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} in ${stats.seconds.toFixed(1)} s; duplicates: ${stats.duplicates}`,
  );
  printGoal('  deliveries per second', perSecond, '/s', { atLeast: GOAL_DELIVERIES_PER_SECOND });
  printGoal('  event-to-receiver latency p50', stats.p50, 'ms', { below: GOAL_P99_MS });
  printGoal('  event-to-receiver latency p99', stats.p99, 'ms', { below: GOAL_P99_MS });
}

async function readStats(baseUrl: string): Promise<ReceiverStats> {
  return (await (await fetch(`${baseUrl}/stats`)).json()) as ReceiverStats;
}

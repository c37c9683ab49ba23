import autocannon from 'autocannon';
import { join } from 'node:path';
import { startChildServer } from './child-server';
import type { Cleanup } from './cleanup';
import { printGoal } from './report';
import { sleep } from './process';

const REGISTRATIONS = 10;
const GOAL_DELIVERIES_PER_SECOND = 2_000;
const GOAL_P99_MS = 1_000;
/** The offered load of the latency phase: events per second, so REGISTRATIONS times as many deliveries. */
const PACED_EVENTS_PER_SECOND = 100;
const DRAIN_TIMEOUT_MS = 300_000;

export interface FanOutContext {
  serviceUrl: string;
  token: string;
  events: number;
  /** Seconds of the latency phase, at PACED_EVENTS_PER_SECOND. */
  pacedSeconds: number;
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
 * contact.created; every contact created through the API becomes REGISTRATIONS signed deliveries.
 * Two phases:
 * - burst: `events` contacts created as fast as 20 connections go; the figure is deliveries per
 *   second from the first arrival to the last (the throughput goal). Its latency includes the
 *   time events wait in the outbox while the burst is worked through, so it is shown, not judged.
 * - paced: PACED_EVENTS_PER_SECOND contacts a second for `pacedSeconds` (1,000 deliveries a
 *   second offered); the figure is event-to-receiver latency (created_at to arrival), p50 and p99.
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
    `\nwebhook fan-out: ${REGISTRATIONS} registrations, ${context.events.toLocaleString('en-US')} events at once (contacts created through the API) ...`,
  );
  // Numbers new to this run, even on a reused bench database: a random area code per run.
  const areaCode = 200 + Math.floor(Math.random() * 700);
  let phone = 0;
  const createContact = {
    method: 'POST' as const,
    headers: { authorization: `Bearer ${context.token}`, 'content-type': 'application/json' },
    // A fresh number per request: a duplicate phone is a 409 and records no event.
    setupRequest: (request: autocannon.Request) => ({
      ...request,
      body: JSON.stringify({ phone: `+1${areaCode}${String(1_000_000 + (phone += 1)).padStart(7, '0')}` }),
    }),
  };
  const burst = await autocannon({
    url: `${context.serviceUrl}/api/v1/contacts`,
    connections: 20,
    amount: context.events,
    requests: [createContact],
  });
  console.log(`  ${burst['2xx']} events recorded (${refusals(burst)}) in ${burst.duration.toFixed(1)} s`);
  const burstStats = await drain(receiver.baseUrl, burst['2xx'] * REGISTRATIONS);
  const perSecond = burstStats.seconds > 0 ? burstStats.received / burstStats.seconds : 0;
  printGoal('  deliveries per second', perSecond, '/s', { atLeast: GOAL_DELIVERIES_PER_SECOND });
  console.log(
    `  event-to-receiver latency of the burst: p50 ${burstStats.p50} ms, p99 ${burstStats.p99} ms (events queue behind the burst)`,
  );

  await fetch(`${receiver.baseUrl}/stats`, { method: 'DELETE' });
  console.log(
    `\nwebhook fan-out, paced: ${PACED_EVENTS_PER_SECOND} events a second for ${context.pacedSeconds} s (${PACED_EVENTS_PER_SECOND * REGISTRATIONS} deliveries a second offered) ...`,
  );
  const paced = await autocannon({
    url: `${context.serviceUrl}/api/v1/contacts`,
    connections: 10,
    overallRate: PACED_EVENTS_PER_SECOND,
    duration: context.pacedSeconds,
    requests: [createContact],
  });
  console.log(`  ${paced['2xx']} events recorded (${refusals(paced)})`);
  const pacedStats = await drain(receiver.baseUrl, paced['2xx'] * REGISTRATIONS);
  console.log(`  event-to-receiver latency p50: ${pacedStats.p50} ms`);
  printGoal('  event-to-receiver latency p99', pacedStats.p99, 'ms', { below: GOAL_P99_MS });
}

/** How many creations were refused, and with which statuses, so a refused run says why. */
function refusals(result: autocannon.Result): string {
  if (result.non2xx === 0) return '0 refused';
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${count ?? 0} x ${status}`);
  return `${result.non2xx} refused: ${statuses.join(', ')}`;
}

/** Waits until the receivers hold `expected` deliveries (or DRAIN_TIMEOUT_MS), then reports. */
async function drain(baseUrl: string, expected: number): Promise<ReceiverStats> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  let stats = await readStats(baseUrl);
  while (stats.received < expected && Date.now() < deadline) {
    await sleep(500);
    stats = await readStats(baseUrl);
  }
  // A moment more, so a duplicate arriving just after the last expected delivery is counted.
  await sleep(1_000);
  stats = await readStats(baseUrl);
  console.log(
    `  delivered ${stats.received.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} in ${stats.seconds.toFixed(1)} s; duplicates: ${stats.duplicates}`,
  );
  return stats;
}

async function readStats(baseUrl: string): Promise<ReceiverStats> {
  return (await (await fetch(`${baseUrl}/stats`)).json()) as ReceiverStats;
}

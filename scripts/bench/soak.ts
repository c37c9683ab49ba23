import { hubSignature, inboundTextWebhook, newWamid } from '../lib/channel-webhook';
import { serviceApi } from './api';
import { printMemoryGrowth, printPeakMemory } from './report';
import { readResident } from './service';

/** What each part of the mixed traffic does a second: a busy team's afternoon, on loopback. */
const RATES = {
  /** Customers' messages through the signed channel webhook (a tenth from customers new to the inbox). */
  customerMessages: 40,
  /** Agents' replies to those conversations (sent to the fake Graph API, statuses back). */
  replies: 8,
  /** The conversation list, a thread, the tabs' counts: what the console reads. */
  reads: 30,
  /** Message searches and report summaries. */
  searches: 2,
  reports: 0.2,
};
/** How often the service's resident memory is read. */
const SAMPLE_MS = 5_000;
/** Customers who write again and again: conversations grow, as a real inbox's do. */
const REGULARS = 500;

export interface SoakContext {
  serviceUrl: string;
  token: string;
  appSecret: string;
  pid: number;
  seconds: number;
  /** Whether the service runs on PostgreSQL, where issue 28 sets the peak memory's goal (the embedded engine holds the database in the process). */
  onPostgres: boolean;
}

/**
 * A soak: the mixed traffic of a busy team (customers writing, agents replying, the console's
 * reads, searches, reports) for `seconds` (10 minutes by default), the service's resident memory
 * read every 5 s. Prints it per minute, and its growth from the second minute (warm: caches and
 * pools filled) to the last: no growth is the goal. Failed requests are counted, not retried.
 */
export async function soak(context: SoakContext): Promise<void> {
  const api = serviceApi(context.serviceUrl, context.token);
  const counts = { sent: 0, failed: 0 };
  const conversations: string[] = [];
  let customer = 0;
  const call = async (work: () => Promise<unknown>) => {
    try {
      await work();
      counts.sent += 1;
    } catch {
      counts.failed += 1;
    }
  };
  const parts: Record<keyof typeof RATES, () => Promise<unknown>> = {
    customerMessages: async () => {
      customer += 1;
      const from = `1556${String(customer % 10 === 0 ? 100_000 + customer : customer % REGULARS).padStart(7, '0')}`;
      const body = JSON.stringify(
        inboundTextWebhook({ from, text: `soak message ${customer}: where is my refund?`, profileName: 'Soak', wamid: newWamid() }),
      );
      const response = await fetch(`${context.serviceUrl}/api/webhooks/messaging`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body, context.appSecret) },
        body,
      });
      if (!response.ok) throw new Error(String(response.status));
    },
    replies: async () => {
      const id = conversations[Math.floor(Math.random() * conversations.length)];
      if (id) await api('POST', `/api/v1/conversations/${id}/messages`, { type: 'text', text: 'On its way!' });
    },
    reads: async () => {
      const page = (await api('GET', '/api/v1/conversations?limit=50')) as { data: { id: string }[] };
      for (const { id } of page.data) if (!conversations.includes(id)) conversations.push(id);
      if (conversations.length > REGULARS) conversations.splice(0, conversations.length - REGULARS);
      const id = page.data[Math.floor(Math.random() * page.data.length)]?.id;
      if (id) await api('GET', `/api/v1/conversations/${id}/messages?limit=50`);
      await api('GET', '/api/v1/conversations/counts');
    },
    searches: () => api('GET', '/api/v1/messages/search?q=refund&limit=20'),
    reports: () => api('GET', '/api/v1/reports/summary?group_by=day'),
  };

  console.log(
    `\nsoak: ${context.seconds} s of mixed traffic (${Object.entries(RATES)
      .map(([part, rate]) => `${part} ${rate}/s`)
      .join(', ')}), the service's memory read every ${SAMPLE_MS / 1000} s ...`,
  );
  const samples: { at: number; rss: number }[] = [];
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const sample = () => samples.push({ at: elapsed(), rss: readResident(context.pid) ?? 0 });
  sample();
  const sampler = setInterval(sample, SAMPLE_MS);
  const running = new Set<Promise<void>>();
  const timers = Object.entries(RATES).map(([part, rate]) =>
    setInterval(() => {
      const done = call(parts[part as keyof typeof RATES]).finally(() => running.delete(done));
      running.add(done);
    }, 1000 / rate),
  );
  await new Promise((resolve) => setTimeout(resolve, context.seconds * 1000));
  for (const timer of timers) clearInterval(timer);
  await Promise.all(running);
  clearInterval(sampler);
  sample();

  const minutes = Math.max(1, Math.ceil(context.seconds / 60));
  console.log('\nminute  RSS mean MB  RSS max MB');
  const perMinute: number[] = [];
  for (let minute = 0; minute < minutes; minute++) {
    const inside = samples.filter((one) => one.at >= minute * 60 && one.at < (minute + 1) * 60).map((one) => one.rss);
    if (inside.length === 0) continue;
    const mean = inside.reduce((sum, rss) => sum + rss, 0) / inside.length;
    perMinute.push(mean);
    console.log(
      `${String(minute + 1).padStart(6)}  ${mean.toFixed(0).padStart(11)}  ${Math.max(...inside)
        .toFixed(0)
        .padStart(10)}`,
    );
  }
  const warm = perMinute[Math.min(1, perMinute.length - 1)];
  const last = perMinute[perMinute.length - 1];
  console.log(`soak: ${counts.sent.toLocaleString('en-US')} requests, ${counts.failed} failed, in ${elapsed().toFixed(0)} s`);
  printMemoryGrowth('soak: mean RSS in minute 2, then in the last minute', warm, last);
  printPeakMemory('soak: peak RSS', Math.max(...samples.map((one) => one.rss)), context.onPostgres);
}

import type autocannon from 'autocannon';
import { hubSignature, inboundTextWebhook, newWamid } from '../lib/channel-webhook';
import { warnIfMachineBusy } from './machine';
import { type Figures, type Load, measure } from './measure';
import { printGoal, printTable } from './report';
import { seededPhone } from './seed-sql';

/** Seeded customers who write in: few enough that some write twice during a run, as in real traffic. */
/** The seeded customers the ingest's messages come from (on the embedded engine, new ones: it has no seed). */
export const INGEST_CUSTOMERS = 5_000;
const GOAL_P99_MS = 100;

const TEXTS = [
  'Hi, is my order shipped?',
  'Thanks!',
  'Can I change the delivery address?',
  'When do you open tomorrow?',
  'Is anyone there?',
];

export interface IngestContext {
  serviceUrl: string;
  appSecret: string;
  /** The goal: 1,500 messages a second on PostgreSQL, 500 on the embedded engine. */
  goalMessagesPerSecond: number;
  /** How many of these wamids the service stored (its database, read after the run). */
  countStored: (wamids: string[]) => Promise<number>;
  load: Load;
}

/**
 * POST /api/webhooks/messaging as the channel would under load: every request one signed message
 * with a new wamid from one of the first INGEST_CUSTOMERS seeded customers (so it lands in an existing
 * conversation, sometimes closed, which it reopens, sometimes assigned, which notifies).
 *
 * A 200 promises the message is committed, so after the run every wamid answered 2xx must be in
 * `messages`: "acknowledged but not stored" is a lost customer message, and must be 0. On a
 * database without the seed (the embedded run) each customer's first message creates them.
 * Answers the service's figures.
 */
export async function benchIngest(context: IngestContext): Promise<Figures> {
  const acknowledged: string[] = [];
  const request: autocannon.Request = {
    method: 'POST',
    path: '/api/webhooks/messaging',
    headers: { 'content-type': 'application/json' },
    setupRequest: (base, connection) => {
      const n = 1 + Math.floor(Math.random() * INGEST_CUSTOMERS);
      const wamid = newWamid();
      const body = JSON.stringify(
        inboundTextWebhook({ from: seededPhone(n).slice(1), text: TEXTS[n % TEXTS.length], profileName: `Customer ${n}`, wamid }),
      );
      // The connection's context is where autocannon lets a request leave data for its own
      // answer: a connection has one request in flight (no pipelining), so the wamid stored here
      // is the one onResponse sees next.
      (connection as { wamid?: string }).wamid = wamid;
      return { ...base, body, headers: { ...base.headers, 'x-hub-signature-256': hubSignature(body, context.appSecret) } };
    },
    onResponse: (status, _body, connection) => {
      const wamid = (connection as { wamid?: string }).wamid;
      if (status >= 200 && status < 300 && wamid) acknowledged.push(wamid);
    },
  };

  console.log(
    `\ningest: ${context.load.connections} connections posting signed single-message webhooks from ${INGEST_CUSTOMERS.toLocaleString('en-US')} customers ...`,
  );
  await warnIfMachineBusy('before this section');
  const figures = await measure({ url: `${context.serviceUrl}/api/webhooks/messaging`, method: 'POST', requests: [request] }, context.load);
  // Warm-up answers included: every acknowledged message counts, whichever run it was in.
  const stored = await context.countStored(acknowledged);
  const messagesPerSecond = figures.ok / figures.seconds;

  printTable('POST /api/webhooks/messaging (one text message per request)', [{ name: 'service', figures }]);
  printGoal('messages stored per second (2xx/s)', messagesPerSecond, 'msg/s', { atLeast: context.goalMessagesPerSecond });
  printGoal('acknowledgement p99', figures.p99, 'ms', { below: GOAL_P99_MS });
  console.log(`acknowledged (warm-up included): ${acknowledged.length}, of them stored: ${stored}`);
  console.log(
    `acknowledged but not stored: ${acknowledged.length - stored}${acknowledged.length === stored ? '' : ' (MUST be 0: a 200 promises the message is committed)'}`,
  );
  if (figures.non2xx > 0 || figures.errors > 0) {
    console.log(`warning: the service answered ${figures.non2xx} non-2xx and ${figures.errors} errors (timeouts or resets); see its log`);
  }
  return figures;
}

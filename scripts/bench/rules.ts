import { serviceApi } from './api';
import { hubSignature, inboundTextWebhook, newWamid } from '../lib/channel-webhook';
import { warnIfMachineBusy } from './machine';
import { seededPhone } from './seed-sql';

/** Rules whose conditions do not hold (the cost of evaluating them) and the one that acts. */
const RULES = 50;
const SENDERS = 20;
const LABEL = 'bench-rule';

export interface RulesContext {
  serviceUrl: string;
  token: string;
  appSecret: string;
  metricsToken: string;
  messages: number;
  /**
   * The customers who write, by their seeded phones (seededPhone `first` to `first + count - 1`): on
   * PostgreSQL the seed's, so that the section adds no conversation to the seed a later run reuses;
   * the embedded engine has no seed, so they are new there.
   */
  customers: { first: number; count: number };
}

interface RunFigures {
  runs: number;
  seconds: number;
}

/** What the section measured with the rules on: for the cost growth between the two sizes. */
export interface RulesFigures {
  /** Events run through the 50 rules per second, from the first message to the last run. */
  eventsPerSecond: number;
  /** The mean `automation.run` attempt: one event through every rule. */
  meanRunMs: number;
}

/**
 * Automation rules at 50 rules: customers write `messages` messages (20 at a time), first with no
 * rule (the reference: no trigger is recorded), then with 50 rules on message.received, 49 whose
 * conditions (a `contains` and a `matches`) do not hold and one that labels the conversation. Reports
 * how fast the webhook took the messages in each case, how long the triggers took to run after, and
 * the mean `automation.run` attempt (all 50 rules of one event: read, evaluate, act, log) from the
 * service's own histogram. Every rule is deleted after, and the label with it.
 */
export async function benchRules(context: RulesContext): Promise<RulesFigures> {
  console.log(`\nrules: ${context.messages} customer messages with no rule, then with ${RULES} rules on message.received ...`);
  await warnIfMachineBusy('before this section');
  const api = serviceApi(context.serviceUrl, context.token);
  const label = await labelId(api);
  const without = await writeIn(context, 0);

  const ids: string[] = [];
  for (let n = 0; n < RULES - 1; n++) {
    const rule = (await api('POST', '/api/v1/automation-rules', {
      name: `Never ${n}`,
      event: 'message.received',
      conditions: [
        { field: 'message.text', operator: 'contains', value: `never-${n}` },
        { field: 'message.text', operator: 'matches', value: `(?i)order\\s+#?${n}\\d{4}` },
      ],
      actions: [{ type: 'add_labels', labels: [LABEL] }],
    })) as { id: string };
    ids.push(rule.id);
  }
  const acting = (await api('POST', '/api/v1/automation-rules', {
    name: 'Label every message',
    event: 'message.received',
    conditions: [{ field: 'message.text', operator: 'starts_with', value: 'bench' }],
    actions: [{ type: 'add_labels', labels: [LABEL] }],
  })) as { id: string };
  ids.push(acting.id);

  try {
    const before = await runMetrics(context);
    const posted = await writeIn(context, 1);
    const started = performance.now();
    let after = await runMetrics(context);
    while (after.count - before.count < context.messages) {
      if (performance.now() - started > 300_000) throw new Error('the rules did not run on every message within 5 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await runMetrics(context);
    }
    const drained = posted.seconds + (performance.now() - started) / 1000;
    const runs = after.count - before.count;
    const meanMs = ((after.sum - before.sum) / runs) * 1000;
    console.log(`\nrules (${RULES} on message.received: 49 evaluated and passed over, 1 acting), ${context.messages} messages`);
    console.log(`  webhook without rules: ${rate(without)} messages/s`);
    console.log(`  webhook with rules:    ${rate(posted)} messages/s (the rules run after the answer, as recorded work)`);
    console.log(
      `  every rule run within ${drained.toFixed(1)} s of the first message: ${(runs / drained).toFixed(0)} events/s through 50 rules`,
    );
    console.log(`  one event's run (read the rules and facts, evaluate 50, act, log), mean: ${meanMs.toFixed(1)} ms`);
    return { eventsPerSecond: runs / drained, meanRunMs: meanMs };
  } finally {
    for (const id of ids) await api('DELETE', `/api/v1/automation-rules/${id}`).catch(() => undefined);
    // The label comes off every conversation the rule labelled (their new messages stay).
    await api('DELETE', `/api/v1/labels/${label}`).catch(() => undefined);
  }
}

/** The id of the label the acting rule adds, made if it is not there (a run stopped before its end leaves it). */
async function labelId(api: ReturnType<typeof serviceApi>): Promise<string> {
  const made = (await api('POST', '/api/v1/labels', { name: LABEL, color: '#2f6fdf' }).catch(() => null)) as { id: string } | null;
  if (made) return made.id;
  const { data } = (await api('GET', '/api/v1/labels?limit=100')) as { data: { id: string; name: string }[] };
  const found = data.find((one) => one.name === LABEL);
  if (!found) throw new Error(`the label ${LABEL} could neither be made nor found`);
  return found.id;
}

function rate(figures: RunFigures): string {
  return (figures.runs / figures.seconds).toFixed(0);
}

/** `messages` signed webhooks, SENDERS at a time, round 1's customers after round 0's; every one must be acknowledged. */
async function writeIn(context: RulesContext, round: number): Promise<RunFigures> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      for (let n = next++; n < context.messages; n = next++) {
        const from = seededPhone(context.customers.first + ((round * context.messages + n) % context.customers.count)).slice(1);
        const body = JSON.stringify(inboundTextWebhook({ from, text: `bench message ${n}`, profileName: `Rules ${n}`, wamid: newWamid() }));
        const response = await fetch(`${context.serviceUrl}/api/webhooks/messaging`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body, context.appSecret) },
          body,
        });
        if (!response.ok) throw new Error(`the channel webhook answered ${response.status}: ${await response.text()}`);
      }
    }),
  );
  return { runs: context.messages, seconds: (performance.now() - started) / 1000 };
}

/** The count and total seconds of `automation.run` attempts, from the service's /metrics. */
async function runMetrics(context: RulesContext): Promise<{ count: number; sum: number }> {
  const response = await fetch(`${context.serviceUrl}/metrics`, { headers: { authorization: `Bearer ${context.metricsToken}` } });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  const text = await response.text();
  const value = (name: string) =>
    Number(
      new RegExp(`^team_inbox_recorded_work_attempt_duration_seconds_${name}\\{job="automation.run"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
    );
  return { count: value('count'), sum: value('sum') };
}

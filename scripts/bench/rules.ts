import { serviceApi } from './api';
import { hubSignature, inboundTextWebhook, newWamid } from '../lib/channel-webhook';
import { warnIfMachineBusy } from './machine';

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
}

interface RunFigures {
  runs: number;
  seconds: number;
}

/**
 * Automation rules at 50 rules: customers write `messages` messages (20 at a time), first with no
 * rule (the reference: no trigger is recorded), then with 50 rules on message.received, 49 whose
 * conditions (a `contains` and a `matches`) do not hold and one that labels the conversation. Reports
 * how fast the webhook took the messages in each case, how long the triggers took to run after, and
 * the mean `automation.run` attempt (all 50 rules of one event: read, evaluate, act, log) from the
 * service's own histogram. Every rule is deleted after.
 */
export async function benchRules(context: RulesContext): Promise<void> {
  console.log(`\nrules: ${context.messages} customer messages with no rule, then with ${RULES} rules on message.received ...`);
  await warnIfMachineBusy('before this section');
  const api = serviceApi(context.serviceUrl, context.token);
  await api('POST', '/api/v1/labels', { name: LABEL, color: '#2f6fdf' }).catch(() => undefined);
  const without = await writeIn(context, 'a');

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
    const posted = await writeIn(context, 'b');
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
  } finally {
    for (const id of ids) await api('DELETE', `/api/v1/automation-rules/${id}`).catch(() => undefined);
  }
}

function rate(figures: RunFigures): string {
  return (figures.runs / figures.seconds).toFixed(0);
}

/** `messages` signed webhooks from new customers, SENDERS at a time; every one must be acknowledged. */
async function writeIn(context: RulesContext, round: string): Promise<RunFigures> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      for (let n = next++; n < context.messages; n = next++) {
        const from = `1555${round === 'a' ? 3 : 4}${String(n).padStart(6, '0')}`;
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

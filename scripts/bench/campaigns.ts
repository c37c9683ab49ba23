import { serviceApi } from './api';
import type { FakeGraph } from './graph';
import { warnIfMachineBusy } from './machine';
import { sleep } from './process';
import { printMemoryGrowth } from './report';
import { readResident } from './service';

const TAG = 'bench-campaign';
/** The contacts of the campaign to a tenth as many recipients. */
const TENTH_TAG = 'bench-campaign-tenth';
/** The smallest campaign to a tenth that is sent (BENCH_CAMPAIGN_RECIPIENTS of 100 or more). */
const MIN_TENTH = 10;
/** Recipients' phones are +1 555 then 7,000,000 + n on 7 digits. */
const MAX_RECIPIENTS = 2_999_999;
/** Contacts per CSV import request: well under the import's 10 MiB. */
const IMPORT_BATCH = 50_000;
/** The second campaign: a rate a number takes by default, to some of the same contacts (those imported with `paced` true). */
const PACED_RATE = 80;
const PACED_RECIPIENTS = 2_400;

export interface CampaignsContext {
  serviceUrl: string;
  token: string;
  /** The service's process, whose resident memory is sampled as the campaign sends. */
  pid: number;
  graph: FakeGraph;
  recipients: number;
  ratePerSecond: number;
}

/**
 * A campaign to `recipients` contacts (imported by CSV with a tag, the same phones on every run)
 * at `ratePerSecond`, sent into the fake Graph API. Reports how long the start took (the recipient
 * list is built by one statement), the rate the channel received against the rate asked for, the
 * most sends the channel received in any one second (never above the rate), duplicates (none),
 * the service's resident memory as the campaign went on (flat: nothing grows with the list), and
 * what one read of the campaign's totals costs while it sends (no count over the list). Then the
 * same to a tenth as many other contacts (their send rate against the whole list's: what 10x the
 * recipients costs each message), and a campaign to 2,400 of the first contacts at 80 a second (a
 * number's default throughput): whether the rate received is the rate asked for.
 */
export async function benchCampaigns(context: CampaignsContext): Promise<void> {
  console.log(`\ncampaigns: importing ${context.recipients} contacts tagged ${TAG}, and a tenth as many tagged ${TENTH_TAG} ...`);
  const api = serviceApi(context.serviceUrl, context.token);
  const imported = performance.now();
  const paced = Math.min(PACED_RECIPIENTS, context.recipients);
  // The campaign to a tenth goes to contacts of its own, never written to: each of its messages
  // opens a conversation, as each of the first campaign's does.
  const tenth = Math.ceil(context.recipients / 10);
  if (context.recipients + tenth > MAX_RECIPIENTS)
    throw new Error(`BENCH_CAMPAIGN_RECIPIENTS: at most ${Math.floor((MAX_RECIPIENTS * 10) / 11)}, the phones' 7 digits with a tenth more`);
  for (let from = 0; from < context.recipients + tenth; from += IMPORT_BATCH) {
    const lines = ['phone,name,tags,paced'];
    for (let n = from; n < Math.min(context.recipients + tenth, from + IMPORT_BATCH); n++)
      lines.push(`+1555${String(7_000_000 + n).padStart(7, '0')},Bench ${n},${n < context.recipients ? TAG : TENTH_TAG},${n < paced}`);
    await api('POST', '/api/v1/contacts/import', lines.join('\n'), 'text/csv');
  }
  console.log(`  imported in ${((performance.now() - imported) / 1000).toFixed(1)} s`);

  await warnIfMachineBusy('before the campaign');
  const all = await runCampaign(context, { tags: [TAG] }, context.ratePerSecond);
  console.log(`\ncampaigns: ${context.recipients} recipients at rate_per_second ${context.ratePerSecond}, into the fake Graph API`);
  console.log(
    `  start: the first message at the channel ${all.startSeconds.toFixed(1)} s after the schedule (the recipient list built by one statement)`,
  );
  printRun(all, context.ratePerSecond);
  const memoryAt = (share: number): number | undefined =>
    all.memory[Math.min(all.memory.length - 1, Math.floor(share * all.memory.length))];
  const at = (share: number) => memoryAt(share)?.toFixed(0) ?? '?';
  console.log(`  service resident memory at 10 %, 50 % and 100 % of the run: ${at(0.1)}, ${at(0.5)}, ${at(0.999)} MB`);
  const [early, end] = [memoryAt(0.1), memoryAt(0.999)];
  if (early !== undefined && end !== undefined) printMemoryGrowth('  service resident memory from 10 % of the run to its end', early, end);
  const sorted = [...all.reads].sort((a, b) => a - b);
  console.log(
    `  GET /api/v1/campaigns/:id while sending (${sorted.length} reads): median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, ` +
      `max ${sorted[sorted.length - 1].toFixed(1)} ms`,
  );

  // A rate needs two sends at least; a tenth of a few recipients says nothing of growth.
  if (tenth >= MIN_TENTH) {
    await warnIfMachineBusy('before the campaign to a tenth');
    const small = await runCampaign(context, { tags: [TENTH_TAG] }, context.ratePerSecond);
    console.log(`\ncampaigns: ${tenth} other contacts (a tenth as many) at rate_per_second ${context.ratePerSecond}`);
    printRun(small, context.ratePerSecond);
    const [smallRate, allRate] = [sendRate(small), sendRate(all)];
    console.log(
      `  send rate at a tenth of the recipients ${smallRate.toFixed(0)}/s, at all of them ${allRate.toFixed(0)}/s: cost growth ${(smallRate / allRate).toFixed(2)}x for 10x the recipients`,
    );
  }

  await warnIfMachineBusy('before the paced campaign');
  const slow = await runCampaign(context, { attributes: { paced: true } }, PACED_RATE);
  console.log(`\ncampaigns: ${paced} of them at rate_per_second ${PACED_RATE} (the Cloud API's default throughput of a number)`);
  printRun(slow, PACED_RATE);
}

interface CampaignRun {
  sends: { to: string; at: number }[];
  startSeconds: number;
  memory: number[];
  reads: number[];
}

/** Messages the channel received per second, from the first send to the last. */
function sendRate({ sends }: CampaignRun): number {
  return sends.length / ((sends[sends.length - 1].at - sends[0].at) / 1000);
}

function printRun(run: CampaignRun, rate: number): void {
  const { sends } = run;
  const seconds = (sends[sends.length - 1].at - sends[0].at) / 1000;
  const distinct = new Set(sends.map((send) => send.to)).size;
  console.log(`  sent ${sends.length} in ${seconds.toFixed(1)} s: ${sendRate(run).toFixed(0)} messages/s against the ${rate} asked for`);
  console.log(`  most sends received in any one second: ${busiestSecond(sends.map((send) => send.at))} (the rate: ${rate})`);
  console.log(`  recipients sent twice: ${sends.length - distinct}`);
}

/** Creates and schedules a campaign, then reads it every second until it completes, sampling the service's memory. */
async function runCampaign(context: CampaignsContext, audience: Record<string, unknown>, rate: number): Promise<CampaignRun> {
  const api = serviceApi(context.serviceUrl, context.token);
  const campaign = (await api('POST', '/api/v1/campaigns', {
    name: `Bench ${new Date().toISOString()}`,
    inbox_id: 'inb_00000000000070008000000000000001',
    template: { name: 'hello_world', language: 'en_US' },
    audience,
    rate_per_second: rate,
  })) as { id: string };
  context.graph.reset();
  const scheduledAt = Date.now();
  await api('POST', `/api/v1/campaigns/${campaign.id}/schedule`, {});
  const memory: number[] = [];
  const reads: number[] = [];
  let status = 'scheduled';
  let totals: unknown = null;
  // Generous: a campaign far slower than asked is a figure to report, not to cut short.
  const deadline = Date.now() + Math.max(600_000, (context.recipients / Math.min(rate, 20)) * 1_000);
  while (status !== 'completed') {
    if (Date.now() > deadline) throw new Error(`the campaign did not complete in time (${status}, ${JSON.stringify(totals)})`);
    await sleep(1000);
    const before = performance.now();
    const now = (await api('GET', `/api/v1/campaigns/${campaign.id}`)) as { status: string; totals: unknown };
    reads.push(performance.now() - before);
    status = now.status;
    totals = now.totals;
    const rss = readResident(context.pid);
    if (rss !== null) memory.push(rss);
  }
  const sends = [...context.graph.sends()];
  return { sends, startSeconds: (sends[0].at - scheduledAt) / 1000, memory, reads };
}

/** The most arrivals within any window of one second. */
function busiestSecond(arrivals: number[]): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while (sorted[to] - sorted[from] >= 1000) from++;
    most = Math.max(most, to - from + 1);
  }
  return most;
}

import { warnIfMachineBusy } from './machine';
import { measure } from './measure';
import { printGoal, printTable, type Row } from './report';
import { readResident } from './service';
import { describeSize, type SeedSize } from './seed-sql';

/** The bound on one summary over 100,000 conversations and 1,000,000 messages. */
const SUMMARY_GOAL_MS = 2_000;
/** One request at a time: the figure is how long a team lead waits, not what a saturated service serves. */
const ONE_AT_A_TIME = { connections: 1, durationSeconds: 8, warmupSeconds: 2 };
/** How often the service's resident memory is read while the CSV streams. */
const MEMORY_SAMPLE_MS = 100;

export interface ReportsContext {
  serviceUrl: string;
  token: string;
  pid: number;
  size: SeedSize;
}

/**
 * Reports over the whole seed: the summary for a year (every seeded fact in it) in each grouping,
 * one request at a time, against the 2 s; then the CSV of every conversation streamed while the
 * service's resident memory is read every 100 ms (constant memory: its peak beside its start).
 */
export async function benchReports(context: ReportsContext): Promise<Row[]> {
  await warnIfMachineBusy('before the reports section');
  const auth = { authorization: `Bearer ${context.token}` };
  const to = new Date();
  const from = new Date(to.getTime() - 365 * 86_400_000);
  const period = `from=${from.toISOString()}&to=${to.toISOString()}`;
  const cases = [
    { name: 'summary, in total', query: '' },
    { name: 'summary by day', query: '&group_by=day' },
    { name: 'summary by week', query: '&group_by=week' },
    { name: 'summary by agent', query: '&group_by=agent' },
    { name: 'summary by inbox, business hours', query: '&group_by=inbox&business_hours=true' },
  ];
  const rows: Row[] = [];
  for (const { name, query } of cases) {
    console.log(`measuring GET /api/v1/reports/summary (${name}), one request at a time ...`);
    const figures = await measure({ url: `${context.serviceUrl}/api/v1/reports/summary?${period}${query}`, headers: auth }, ONE_AT_A_TIME);
    rows.push({ name: `reports: ${name}`, figures });
  }
  printTable(`GET /api/v1/reports/summary over a year, ${describeSize(context.size)} (one request at a time)`, rows);
  const slowest = Math.max(...rows.map((row) => row.figures.p99));
  printGoal('slowest summary, p99', slowest, 'ms', { below: SUMMARY_GOAL_MS });

  await streamCsv(context, period, auth);
  return rows;
}

/** Downloads the year's CSV, counting rows and bytes, with the service's RSS read along the way. */
async function streamCsv(context: ReportsContext, period: string, auth: Record<string, string>): Promise<void> {
  console.log('streaming GET /api/v1/reports/conversations.csv for the year ...');
  const before = readResident(context.pid) ?? 0;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, readResident(context.pid) ?? 0)), MEMORY_SAMPLE_MS);
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  try {
    const response = await fetch(`${context.serviceUrl}/api/v1/reports/conversations.csv?${period}`, { headers: auth });
    if (!response.ok || !response.body) throw new Error(`the CSV answered ${response.status}`);
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines += 1;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  const after = readResident(context.pid) ?? 0;
  console.log(
    `CSV: ${(lines - 1).toLocaleString('en-US')} conversations, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s ` +
      `(${Math.round((lines - 1) / seconds).toLocaleString('en-US')} rows/s); service RSS ${before.toFixed(0)} MB before, ` +
      `${peak.toFixed(0)} MB at most while streaming, ${after.toFixed(0)} MB after (reference: the CSV itself is ${(bytes / 1e6).toFixed(1)} MB)`,
  );
}

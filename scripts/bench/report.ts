import type { Figures } from './measure';

export interface Row {
  name: string;
  figures: Figures;
}

/** A plain-text table, aligned for a terminal and pasteable into a PR or the README as is. */
export function printTable(title: string, rows: Row[]): void {
  const header = ['case', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'];
  const cells = rows.map(({ name, figures: f }) => [
    name,
    f.rps.toFixed(0),
    f.p50.toFixed(1),
    f.p99.toFixed(1),
    String(f.non2xx),
    String(f.errors),
  ]);
  printAligned(title, header, cells);
}

/** Prints a title, then the header and cells aligned in columns. */
function printAligned(title: string, header: string[], cells: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  // The name column reads left-aligned, the numbers right-aligned so their digits line up.
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of cells) console.log(line(row));
}

/** One case's throughput as a share of its baseline, against the goal; informative, never fatal. */
export function printRatio(label: string, measured: Figures, baseline: Figures, goalPercent: number): void {
  const percent = baseline.rps > 0 ? (measured.rps / baseline.rps) * 100 : 0;
  const verdict = percent >= goalPercent ? 'met' : 'MISSED';
  console.log(`${label}: ${percent.toFixed(1)}% (goal >= ${goalPercent}%: ${verdict})`);
}

/** A figure against a bound (under `below`, or at least `atLeast`); informative, never fatal, like printRatio. */
export function printGoal(label: string, value: number, unit: string, goal: { below: number } | { atLeast: number }): void {
  const met = 'below' in goal ? value < goal.below : value >= goal.atLeast;
  const bound = 'below' in goal ? `< ${goal.below}` : `>= ${goal.atLeast}`;
  console.log(`${label}: ${value.toFixed(value < 100 ? 1 : 0)} ${unit} (goal ${bound} ${unit}: ${met ? 'met' : 'MISSED'})`);
}

/** Issue 28's memory goals: the service's peak resident memory on PostgreSQL, and how far it may move while a long run goes on ("no growth"). */
const MEMORY_GOAL_MB = 300;
const MEMORY_GROWTH_GOAL_PERCENT = 5;

/** How much resident memory grew from `from` MB to `to` MB, in percent, against MEMORY_GROWTH_GOAL_PERCENT either way; informative, never fatal. */
export function printMemoryGrowth(label: string, from: number, to: number): void {
  const growth = ((to - from) / from) * 100;
  const met = Math.abs(growth) <= MEMORY_GROWTH_GOAL_PERCENT;
  console.log(
    `${label}: ${from.toFixed(0)} -> ${to.toFixed(0)} MB, ${growth >= 0 ? '+' : ''}${growth.toFixed(1)}% (goal: flat, within ${MEMORY_GROWTH_GOAL_PERCENT}%: ${met ? 'met' : 'MISSED'})`,
  );
}

/** The service's peak resident memory, against MEMORY_GOAL_MB on PostgreSQL only: the embedded engine holds the database in the process. */
export function printPeakMemory(label: string, peakMb: number, onPostgres: boolean): void {
  if (onPostgres) printGoal(label, peakMb, 'MB', { below: MEMORY_GOAL_MB });
  else console.log(`${label}: ${peakMb.toFixed(0)} MB (no goal on the embedded engine)`);
}

/** What 10x more data may cost: the goal on cost growth. */
const GROWTH_GOAL = 1.5;

/**
 * The cost of each case at a tenth of the size and at the full size, side by side. Cost is time
 * per request at saturation, so its growth is the tenth's req/s over the full size's; the p99s
 * are shown beside it. Informative, never fatal.
 */
export function printGrowth(tenth: Row[], full: Row[]): void {
  const header = ['case', 'req/s tenth', 'req/s full', 'cost growth', 'p99 tenth', 'p99 full', `goal <= ${GROWTH_GOAL}x`];
  const cells = full.flatMap(({ name, figures }) => {
    const small = tenth.find((row) => row.name === name)?.figures;
    if (!small || figures.rps <= 0) return [];
    const growth = small.rps / figures.rps;
    return [
      [
        name,
        small.rps.toFixed(0),
        figures.rps.toFixed(0),
        `${growth.toFixed(2)}x`,
        `${small.p99.toFixed(1)} ms`,
        `${figures.p99.toFixed(1)} ms`,
        growth <= GROWTH_GOAL ? 'met' : 'MISSED',
      ],
    ];
  });
  printAligned('Cost growth: the same cases at a tenth of the size and at the full size (service only)', header, cells);
}

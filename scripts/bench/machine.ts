import { cpus } from 'node:os';
import { sleep } from './process';

/**
 * How busy the CPUs are while the bench is idle (its servers started, no load yet): on a shared
 * machine, another process eating a core halves the figures and blurs every ratio. Sampled for
 * `ms` from the OS's per-CPU counters (os.cpus() times, available on every platform).
 */
export async function busyPercent(ms = 1000): Promise<number> {
  const before = totals();
  await sleep(ms);
  const after = totals();
  const all = after.all - before.all;
  return all > 0 ? 100 * (1 - (after.idle - before.idle) / all) : 0;
}

/** Prints a warning when something else uses the CPUs; the run goes on, its figures flagged. */
export async function warnIfMachineBusy(when: string): Promise<void> {
  const busy = await busyPercent();
  if (busy >= 15) {
    console.log(
      `warning: the CPUs were ${busy.toFixed(0)}% busy ${when} with no load applied (other processes, or background work such as autovacuum): figures will be lower and noisier than on a quiet machine`,
    );
  }
}

function totals(): { idle: number; all: number } {
  let idle = 0;
  let all = 0;
  for (const { times } of cpus()) {
    idle += times.idle;
    all += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, all };
}

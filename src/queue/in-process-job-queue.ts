import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { DEFAULT_CONCURRENCY, JobName, JobQueue, jobIdOf, WorkItem } from './job-queue';

/**
 * Jobs in this process's memory, for the embedded default: at most `concurrency` running per
 * kind, the rest waiting in order. A crash loses what waits here; the rows that record the work
 * are still due, and the relay hands them on again.
 */
@Injectable()
export class InProcessJobQueue extends JobQueue implements BeforeApplicationShutdown {
  private readonly logger = new Logger(InProcessJobQueue.name);
  /** Job ids waiting or running, so the same attempt added twice runs once. */
  private readonly pending = new Set<string>();
  private readonly waitingJobs = new Map<JobName, { work: WorkItem; addedAt: number }[]>();
  private readonly runningCount = new Map<JobName, number>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;
  /** Nothing here survives a crash, and a repeat of a waiting job costs a Set lookup: keep it short. */
  readonly handoffLeaseMs = 2_000;

  get accepting(): boolean {
    return !this.closed;
  }

  add(name: JobName, work: WorkItem): Promise<void> {
    this.definition(name);
    const key = `${name}:${jobIdOf(work)}`;
    if (this.closed || this.pending.has(key)) return Promise.resolve();
    this.pending.add(key);
    this.waitingOf(name).push({ work, addedAt: Date.now() });
    this.startWaiting(name);
    return Promise.resolve();
  }

  async addAll(name: JobName, works: WorkItem[]): Promise<void> {
    for (const work of works) await this.add(name, work);
  }

  /** Stops starting jobs and waits for those running, before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.waitingJobs.clear();
    await Promise.allSettled([...this.running]);
  }

  protected startProcessing(): void {
    // Jobs are started by add() and when a running one ends; nothing to poll.
  }

  private startWaiting(name: JobName): void {
    const definition = this.definition(name);
    const limit = definition.concurrency ?? DEFAULT_CONCURRENCY;
    const queue = this.waitingOf(name);
    while (!this.closed && queue.length > 0 && (this.runningCount.get(name) ?? 0) < limit) {
      const { work } = queue.shift()!;
      const key = `${name}:${jobIdOf(work)}`;
      this.runningCount.set(name, (this.runningCount.get(name) ?? 0) + 1);
      const run = this.run(name, definition, work, (error) =>
        this.logger.error(`Job ${key} failed: ${String(error)}`, error instanceof Error ? error.stack : undefined),
      ).finally(() => {
        this.pending.delete(key);
        this.running.delete(run);
        this.runningCount.set(name, (this.runningCount.get(name) ?? 1) - 1);
        this.startWaiting(name);
      });
      this.running.add(run);
    }
  }

  waiting(name: JobName): Promise<{ count: number; oldestAddedAt: number | null }> {
    const queue = this.waitingOf(name);
    return Promise.resolve({ count: queue.length, oldestAddedAt: queue[0]?.addedAt ?? null });
  }

  private waitingOf(name: JobName): { work: WorkItem; addedAt: number }[] {
    let queue = this.waitingJobs.get(name);
    if (!queue) this.waitingJobs.set(name, (queue = []));
    return queue;
  }
}

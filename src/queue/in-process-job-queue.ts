import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { JobDefinition, JobName, JobQueue, retryDelay } from './job-queue';

/**
 * Jobs in this process's memory, for the embedded default. A crash loses the pending ones;
 * every producer therefore keeps its work recorded in the database and re-adds it on start.
 */
@Injectable()
export class InProcessJobQueue extends JobQueue implements BeforeApplicationShutdown {
  private readonly logger = new Logger(InProcessJobQueue.name);
  private readonly pending = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  add<T>(name: JobName, data: T, jobId: string, delayMs = 0): Promise<void> {
    const key = `${name}:${jobId}`;
    if (this.closed || this.pending.has(key)) return Promise.resolve();
    this.definition(name);
    this.pending.add(key);
    this.schedule(name, data, key, 1, delayMs);
    return Promise.resolve();
  }

  /** Stops starting attempts and waits for those running, before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  protected startProcessing(): void {
    // Attempts are started by add() and by retries; nothing to poll.
  }

  private schedule(name: JobName, data: unknown, key: string, attempt: number, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.attempt(name, data, key, attempt);
    }, delayMs);
    this.timers.add(timer);
  }

  private attempt(name: JobName, data: unknown, key: string, attempt: number): void {
    const definition: JobDefinition<unknown> = this.definition(name);
    const final = attempt > definition.retryDelaysMs.length;
    const run = definition.handle(data, { attempt, final }).then(
      () => {
        this.pending.delete(key);
      },
      (error: unknown) => {
        if (final || this.closed) {
          this.pending.delete(key);
          this.logger.error(`Job ${key} failed on attempt ${attempt}: ${String(error)}`);
        } else {
          this.schedule(name, data, key, attempt + 1, retryDelay(definition.retryDelaysMs, attempt, error));
        }
      },
    );
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }
}

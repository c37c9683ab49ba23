import { getQueueToken } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { JobDefinition, JobName, JobQueue, retryDelay } from './job-queue';

const DEFAULT_CONCURRENCY = 16;

/** The Bull backoff strategy: the delay is worked out where the error is known and carried on it. */
export const BACKOFF_STRATEGIES = {
  schedule: (_attemptsMade: number, error: Error): number => (error as Error & { retryDelayMs?: number }).retryDelayMs ?? 1000,
};

/** Jobs in Redis through Bull: shared by every replica, kept across restarts. */
@Injectable()
export class BullJobQueue extends JobQueue implements BeforeApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  async add<T>(name: JobName, data: T, jobId: string, delayMs = 0): Promise<void> {
    const attempts = this.definition(name).retryDelaysMs.length + 1;
    await this.queue(name).add(data, { jobId, delay: delayMs, attempts, backoff: { type: 'schedule' }, removeOnComplete: true, removeOnFail: 1000 });
  }

  /** Waits for the jobs running here to finish before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.definitions.keys()].map((name) => this.queue(name).close()));
  }

  protected startProcessing(name: JobName, definition: JobDefinition<unknown>): void {
    void this.queue(name).process(definition.concurrency ?? DEFAULT_CONCURRENCY, async (job) => {
      const attempt = job.attemptsMade + 1;
      try {
        await definition.handle(job.data, { attempt, final: attempt > definition.retryDelaysMs.length });
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        throw Object.assign(failure, { retryDelayMs: retryDelay(definition.retryDelaysMs, attempt, error) });
      }
    });
  }

  private queue(name: JobName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }
}

import { getQueueToken } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { closeRedis } from '../common/redis';
import { DEFAULT_CONCURRENCY, JobDefinition, JobName, JobQueue, jobIdOf, WorkItem } from './job-queue';

/** One job per attempt (its id), run once, forgotten when done; the last 1,000 failures kept for inspection. */
function jobOptions(work: WorkItem) {
  return { jobId: jobIdOf(work), attempts: 1, removeOnComplete: true, removeOnFail: 1000 };
}

/** Jobs in Redis through Bull: shared by every replica, kept across restarts. */
@Injectable()
export class BullJobQueue extends JobQueue implements BeforeApplicationShutdown {
  /** Waiting jobs survive in Redis; a repeat costs a Redis round trip per job. */
  readonly handoffLeaseMs = 10_000;

  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  get accepting(): boolean {
    return [...this.definitions.keys()].every((name) => this.queue(name).client.status === 'ready');
  }

  /**
   * Fails at once while Redis is unreachable (Bull would wait for it): the row stays due, and the
   * relay hands it on again once Redis is back.
   */
  async add(name: JobName, work: WorkItem): Promise<void> {
    this.definition(name);
    const queue = this.queue(name);
    if (queue.client.status !== 'ready') throw new Error(`Redis is unreachable (${queue.client.status})`);
    await queue.add(work, jobOptions(work));
  }

  /** One round trip for the batch: the relay hands on up to 200 attempts at once (fan-out to many receivers). */
  async addAll(name: JobName, works: WorkItem[]): Promise<void> {
    this.definition(name);
    if (works.length === 0) return;
    const queue = this.queue(name);
    if (queue.client.status !== 'ready') throw new Error(`Redis is unreachable (${queue.client.status})`);
    await queue.addBulk(works.map((work) => ({ data: work, opts: jobOptions(work) })));
  }

  /** Read from Redis: the jobs of every replica. Bull adds at the head of its wait list, so the oldest is the last. */
  async waiting(name: JobName): Promise<{ count: number; oldestAddedAt: number | null }> {
    const queue = this.queue(name);
    const [count, oldest] = await Promise.all([queue.getWaitingCount(), queue.getWaiting(-1, -1)]);
    return { count, oldestAddedAt: oldest[0]?.timestamp ?? null };
  }

  /**
   * Waits for the jobs running here to finish before the database closes. Without Redis there is
   * nothing to wait for, and Bull's close() would wait for Redis: its connections are dropped.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(
      [...this.definitions.keys()].map((name) => {
        const queue = this.queue(name);
        if (queue.client.status === 'ready') return queue.close();
        return Promise.all(queue.clients.map(closeRedis)).then(() => undefined);
      }),
    );
  }

  protected startProcessing(name: JobName, definition: JobDefinition): void {
    void this.queue(name).process(definition.concurrency ?? DEFAULT_CONCURRENCY, (job) => this.run(name, definition, job.data as WorkItem));
  }

  private queue(name: JobName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }
}

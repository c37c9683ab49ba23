import { getQueueToken } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { DEFAULT_CONCURRENCY, JobDefinition, JobName, JobQueue, jobIdOf, WorkItem } from './job-queue';

/** Jobs in Redis through Bull: shared by every replica, kept across restarts. */
@Injectable()
export class BullJobQueue extends JobQueue implements BeforeApplicationShutdown {
  /** Waiting jobs survive in Redis; a repeat costs a Redis round trip per job. */
  readonly handoffLeaseMs = 10_000;

  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  async add(name: JobName, work: WorkItem): Promise<void> {
    this.definition(name);
    await this.queue(name).add(work, { jobId: jobIdOf(work), attempts: 1, removeOnComplete: true, removeOnFail: 1000 });
  }

  /** Waits for the jobs running here to finish before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.definitions.keys()].map((name) => this.queue(name).close()));
  }

  protected startProcessing(name: JobName, definition: JobDefinition): void {
    void this.queue(name).process(definition.concurrency ?? DEFAULT_CONCURRENCY, (job) => definition.handle(job.data as WorkItem));
  }

  private queue(name: JobName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }
}

import { OnApplicationBootstrap } from '@nestjs/common';

/** Every kind of background job. The queue refuses to boot while one of them has no handler. */
export const JOB_NAMES = ['message.send', 'webhook.deliver'] as const;
export type JobName = (typeof JOB_NAMES)[number];

export interface JobContext {
  /** 1 for the first attempt. */
  attempt: number;
  /** No attempt follows this one if it fails: the handler records the failure itself. */
  final: boolean;
}

export interface JobDefinition<T> {
  handle(data: T, context: JobContext): Promise<void>;
  /** Delays before the 2nd, 3rd, … attempts; attempts = delays + 1. */
  retryDelaysMs: number[];
  /** Jobs of this kind one instance runs at once (Bull); I/O-bound kinds want many. Default 16. */
  concurrency?: number;
}

/** Thrown by a handler whose next attempt must wait at least this long (a receiver's Retry-After). */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly minDelayMs: number,
  ) {
    super(message);
  }
}

/** The delay before the attempt after `attemptsMade`: the schedule's, or longer if the error asks. */
export function retryDelay(retryDelaysMs: number[], attemptsMade: number, error: unknown): number {
  const scheduled = retryDelaysMs[Math.min(attemptsMade, retryDelaysMs.length) - 1] ?? 0;
  return error instanceof RetryLaterError ? Math.max(scheduled, error.minDelayMs) : scheduled;
}

/**
 * Background jobs with retries, the same for both engines: Bull on Redis (shared by replicas,
 * survives restarts) or in process (the embedded default). A job id is unique while the job
 * waits or retries, so adding the same job twice runs it once.
 */
export abstract class JobQueue implements OnApplicationBootstrap {
  protected readonly definitions = new Map<JobName, JobDefinition<unknown>>();

  register<T>(name: JobName, definition: JobDefinition<T>): void {
    if (this.definitions.has(name)) throw new Error(`Job ${name} has two handlers`);
    this.definitions.set(name, definition as JobDefinition<unknown>);
    this.startProcessing(name, definition as JobDefinition<unknown>);
  }

  /** Adds a job, run after `delayMs`; a job id already waiting or retrying is not added again. */
  abstract add<T>(name: JobName, data: T, jobId: string, delayMs?: number): Promise<void>;

  onApplicationBootstrap(): void {
    const missing = JOB_NAMES.filter((name) => !this.definitions.has(name));
    if (missing.length > 0) throw new Error(`No handler registered for job(s): ${missing.join(', ')}`);
  }

  protected definition(name: JobName): JobDefinition<unknown> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`No handler registered for job ${name}`);
    return definition;
  }

  protected abstract startProcessing(name: JobName, definition: JobDefinition<unknown>): void;
}

import { OnApplicationBootstrap } from '@nestjs/common';
import { runLoggedAs } from '../common/logger';

/** Every kind of background job. The queue refuses to boot while one of them has no handler. */
export const JOB_NAMES = [
  'message.send',
  'webhook.deliver',
  'reaction.send',
  'read-receipt.send',
  'template.sync',
  'email.send',
  'media.download',
  'automation.run',
  'campaign.dispatch',
] as const;
export type JobName = (typeof JOB_NAMES)[number];

/**
 * One attempt at one piece of recorded work: the id of the row that records it (a message to
 * send, a delivery) and the attempt the relay handed on. The row is the truth; a job only wakes
 * the attempt, and the handler claims the row for exactly this attempt, so a job run twice, or
 * run after another worker took the attempt, does nothing.
 */
export interface WorkItem {
  id: string;
  attempt: number;
}

export interface JobDefinition {
  handle(work: WorkItem): Promise<void>;
  /** Jobs of this kind one instance runs at once; I/O-bound kinds want many. Default 16. */
  concurrency?: number;
}

export const DEFAULT_CONCURRENCY = 16;

/** The one place a job id is formed: one job per attempt at one row. */
export function jobIdOf(work: WorkItem): string {
  return `${work.id}:${work.attempt}`;
}

/**
 * The delay before the attempt after `attemptsMade` (1 for the first): the schedule's, the last
 * delay repeating, or longer when the other side asked for it (a Retry-After).
 */
export function retryDelay(retryDelaysMs: number[], attemptsMade: number, atLeastMs = 0): number {
  const scheduled = retryDelaysMs[Math.min(attemptsMade, retryDelaysMs.length) - 1] ?? 0;
  return Math.max(scheduled, atLeastMs);
}

/**
 * Runs the attempts the relay hands on, the same for both engines: Bull on Redis (shared by
 * replicas, kept across restarts) or in process (the embedded default). Retries are not the
 * queue's business: a failed attempt records its next attempt in its row, and the relay hands it
 * on when it is due. Adding a job whose id is still waiting or running does nothing.
 */
export abstract class JobQueue implements OnApplicationBootstrap {
  protected readonly definitions = new Map<JobName, JobDefinition>();

  /**
   * How long a handed-on attempt may wait here before the relay hands it on again (adding a job
   * still waiting is a no-op, so the cost of a short lease is a cheap repeat). It bounds how late
   * an attempt whose job was lost with a crash starts.
   */
  abstract readonly handoffLeaseMs: number;

  register(name: JobName, definition: JobDefinition): void {
    if (this.definitions.has(name)) throw new Error(`Job ${name} has two handlers`);
    this.definitions.set(name, definition);
    this.startProcessing(name, definition);
  }

  abstract add(name: JobName, work: WorkItem): Promise<void>;

  /** Adds a batch of jobs of one kind, as `add` does each (Bull: in one round trip to Redis). */
  abstract addAll(name: JobName, works: WorkItem[]): Promise<void>;

  /** The jobs of this kind waiting to start, and when the oldest of them was added (null when none waits). */
  abstract waiting(name: JobName): Promise<{ count: number; oldestAddedAt: number | null }>;

  /** The kinds of job registered here. */
  get names(): JobName[] {
    return [...this.definitions.keys()];
  }

  /** Whether `add` can take jobs now (Redis reachable): the relay claims no work while it cannot. */
  abstract get accepting(): boolean;

  onApplicationBootstrap(): void {
    const missing = JOB_NAMES.filter((name) => !this.definitions.has(name));
    if (missing.length > 0) throw new Error(`No handler registered for job(s): ${missing.join(', ')}`);
  }

  protected definition(name: JobName): JobDefinition {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`No handler registered for job ${name}`);
    return definition;
  }

  protected abstract startProcessing(name: JobName, definition: JobDefinition): void;

  /**
   * One job, logged under its own id, its failure (`failed`, when given; else the rejection) too:
   * never under the request (or task) whose commit handed it on.
   */
  protected run(name: JobName, definition: JobDefinition, work: WorkItem, failed?: (error: unknown) => void): Promise<void> {
    return runLoggedAs({ jobId: `${name}:${jobIdOf(work)}` }, () =>
      failed ? definition.handle(work).catch(failed) : definition.handle(work),
    );
  }
}

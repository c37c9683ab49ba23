import type { Sql } from '../database/sql';
import { JobName, retryDelay } from '../queue/job-queue';

/** The tables of recorded work: each has `id`, `attempts`, `next_attempt_at`, `claimed_by` and `updated_at`. */
export type RecordedWorkTable =
  | 'messages'
  | 'webhook_deliveries'
  | 'reaction_sends'
  | 'read_receipts'
  | 'template_syncs'
  | 'outbound_emails'
  | 'media'
  | 'automation_triggers'
  | 'campaigns';

/** A row claimed for one attempt: its id, the attempt it was claimed for, and what the kind asked the claim to return. */
export interface ClaimedWork {
  id: string;
  attempts: number;
}

/** Why an attempt failed, as the kind judges it. */
export interface WorkFailure {
  /** One sentence, recorded with the row (its error column) and shown to users. */
  reason: string;
  /** False when no other attempt can change the outcome (a refusal): the work fails at once. */
  retryable: boolean;
  /** The other side asked to wait at least this long (a Retry-After). */
  retryAfterMs?: number | null;
}

/**
 * One kind of work that must happen after a commit (a message to send, a media to download), told
 * once to the engine (RecordedWork.register), which hands due rows to the job queue, claims each
 * for one attempt, leases it, schedules the next attempt or fails it, and releases what a dead
 * instance held. The kind says which rows wait, what an attempt needs, and does the attempt;
 * `Failure` is how it judges a failed one (a kind may carry more than the reason in it).
 */
export interface WorkKind<Claimed extends ClaimedWork = ClaimedWork, Failure extends WorkFailure = WorkFailure> {
  job: JobName;
  table: RecordedWorkTable;
  /** The type of the table's `id`. Default uuid. */
  idType?: 'uuid' | 'text';
  /** The rows whose work is not finished, on the table aliased `w` (e.g. w.status = 'queued'). */
  waiting: Sql;
  /**
   * What an attempt needs beyond `id` and `attempts`, taken in the statement that claims the row:
   * `from` more tables, `where` joining them to `w` (and any further condition), `columns` returned.
   */
  needs?: { from?: Sql; where?: Sql; columns?: Sql };
  /** Longer than an attempt can take: a crash mid-attempt leaves the row due again after this. */
  leaseMs: number;
  /** Attempts one instance runs at once; I/O-bound kinds want many. Default 16. */
  concurrency?: number;
  /** The column a retry's reason is written to, or none when the kind records no reason before it ends. */
  errorColumn?: 'error' | 'last_error';
  /** Does the work and records its success; throws when it failed. */
  attempt(claimed: Claimed): Promise<void>;
  /** How a thrown error counts. */
  failure(error: unknown, claimed: Claimed): Failure;
  /** The delay before the next attempt after a retryable failure, or null when the work ends failed (see `onSchedule`). */
  nextAttemptInMs(claimed: Claimed, failure: Failure): number | null;
  /**
   * Records that the work ended failed: refused, or out of attempts. A kind without it never ends
   * (a periodic sync): every failure it judges is retryable and `nextAttemptInMs` always answers a delay.
   */
  fail?(claimed: Claimed, failure: Failure): Promise<void>;
  /** Records a retry when the engine's own (next_attempt_at, the reason in `errorColumn`) is not enough. */
  retry?(claimed: Claimed, at: Date, failure: Failure): Promise<void>;
  /** Whether this instance does this kind of work at all (no template catalogue: no sync). Default true. */
  enabled?(): boolean;
}

/**
 * The usual retry rule: one attempt more than the schedule has delays, each delay the schedule's
 * (the last repeating) or longer when the other side asked for it. `schedule` is read at each
 * failure, so a kind can take it from the configuration.
 */
export function onSchedule(schedule: () => number[]): (claimed: ClaimedWork, failure: WorkFailure) => number | null {
  return (claimed, failure) => {
    const delays = schedule();
    return claimed.attempts > delays.length ? null : retryDelay(delays, claimed.attempts, failure.retryAfterMs ?? 0);
  };
}

import { Injectable } from '@nestjs/common';
import { Batcher } from '../common/batcher';
import { toStorable } from '../common/storable-text';
import { Database } from '../database/database';
import { InstanceRegistry } from '../database/instance-registry';
import { OutboxRelay } from '../events/outbox-relay';
import { Metrics } from '../metrics/metrics';
import { JobQueue, WorkItem } from '../queue/job-queue';
import { RecordedWorkRepository } from './recorded-work.repository';
import type { ClaimedWork, WorkFailure, WorkKind } from './work-kind';

/**
 * Claims of concurrent attempts of one kind share a statement: up to 100 a statement, two
 * statements at once (webhook deliveries run 200 attempts at once).
 */
const CLAIM_BATCH = { maxBatch: 100, concurrency: 2 };

type AttemptOutcome = 'done' | 'retry' | 'failed';

/**
 * The one engine of recorded work. A row records each piece of work in the transaction that made
 * it necessary; the relay hands every due row to the job queue (its due time pushed past a short
 * hand-off lease), the job claims the row for exactly that attempt (so a job run twice, or after
 * another worker took the attempt, does nothing), the kind's attempt runs, and its failure becomes
 * the next attempt at the kind's schedule or the end of the work. A crash leaves the row due again
 * when its lease ends, or within seconds when the instance that held it is known dead. Every
 * attempt is counted and timed per job (team_inbox_recorded_work_attempts_total, …_duration_seconds).
 */
@Injectable()
export class RecordedWork {
  constructor(
    private readonly queue: JobQueue,
    private readonly relay: OutboxRelay,
    private readonly repository: RecordedWorkRepository,
    private readonly database: Database,
    private readonly instance: InstanceRegistry,
    private readonly metrics: Metrics,
  ) {}

  /** Takes a kind of work in; called while the application starts (a module's onModuleInit). */
  register<Claimed extends ClaimedWork, Failure extends WorkFailure = WorkFailure>(kind: WorkKind<Claimed, Failure>): void {
    const enabled = kind.enabled ?? (() => true);
    const claims = new Batcher<WorkItem, Claimed | null>((work) => this.claimBatch(kind, work), CLAIM_BATCH);
    this.queue.register(kind.job, { concurrency: kind.concurrency, handle: (work) => this.run(kind, claims, work) });
    this.relay.addWorkSource({
      job: kind.job,
      table: kind.table,
      claimDue: async (db, limit, leaseMs) =>
        enabled() ? this.repository.claimDue(db, kind, limit, leaseMs) : { items: [], nextDueInMs: null },
      releaseAbandoned: async (db) => (enabled() ? this.repository.releaseAbandoned(db, kind) : 0),
    });
  }

  /** One job: the claim of its row for this attempt, the attempt, and its outcome recorded. */
  private async run<Claimed extends ClaimedWork, Failure extends WorkFailure>(
    kind: WorkKind<Claimed, Failure>,
    claims: Batcher<WorkItem, Claimed | null>,
    work: WorkItem,
  ): Promise<void> {
    const claimed = await claims.run(work);
    if (!claimed) return;
    const started = performance.now();
    const outcome = await this.attempt(kind, claimed);
    this.metrics.recordedWorkAttempts.inc({ job: kind.job, outcome });
    this.metrics.recordedWorkAttemptDuration.observe({ job: kind.job }, (performance.now() - started) / 1000);
  }

  private async attempt<Claimed extends ClaimedWork, Failure extends WorkFailure>(
    kind: WorkKind<Claimed, Failure>,
    claimed: Claimed,
  ): Promise<AttemptOutcome> {
    try {
      await kind.attempt(claimed);
      return 'done';
    } catch (error) {
      const judged = kind.failure(error, claimed);
      const failure = { ...judged, reason: toStorable(judged.reason) };
      const delay = failure.retryable ? kind.nextAttemptInMs(claimed, failure) : null;
      if (delay === null) {
        if (!kind.fail) throw new Error(`${kind.job} has no end, yet an attempt failed for good: ${failure.reason}`);
        await kind.fail(claimed, failure);
        return 'failed';
      }
      const at = new Date(Date.now() + delay);
      if (kind.retry) await kind.retry(claimed, at, failure);
      else await this.repository.scheduleRetry(this.database.db, kind, claimed.id, at, failure.reason);
      return 'retry';
    }
  }

  /** Each work item's claimed row, given to the first item of the batch that asked for that attempt. */
  private async claimBatch<Claimed extends ClaimedWork, Failure extends WorkFailure>(
    kind: WorkKind<Claimed, Failure>,
    work: WorkItem[],
  ): Promise<(Claimed | null)[]> {
    const rows = await this.repository.claimAttempts<Claimed>(this.database.db, kind, work, this.instance.id);
    const claimed = new Map(rows.map((row) => [`${row.id}/${row.attempts}`, row]));
    return work.map((item) => {
      const key = `${item.id}/${item.attempt}`;
      const row = claimed.get(key) ?? null;
      claimed.delete(key);
      return row;
    });
  }
}

import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { Database } from '../database/database';
import { InstanceRegistry } from '../database/instance-registry';
import type { Db } from '../database/sql';
import { Metrics } from '../metrics/metrics';
import { JobName, JobQueue, WorkItem } from '../queue/job-queue';
import type { EventRow } from './event.entity';
import { EventRepository } from './event.repository';

const BATCH = 200;
const POLL_EVERY_MS = 100;
/** How often the work of instances that died is looked for (their heartbeats are 2 s apart). */
const ABANDONED_EVERY_MS = 2_000;
/**
 * How long the outbox and each kind of work go unread when no write of this instance concerned
 * them and nothing is due by the clock: what another instance committed and did not hand on (it
 * died meanwhile), a lease that ended, a row changed outside the service.
 */
const UNWATCHED_EVERY_MS = 1_000;

/** Something that follows every committed event (webhook deliveries, the live stream). */
export interface EventConsumer {
  /** Inside the relay's transaction: records the work that must follow the events, so it is never lost. */
  record?(db: Db, events: EventRow[]): Promise<void>;
  /** After that commit, for what keeps no record (the live stream); a failure is logged, not retried. */
  afterCommit?(events: EventRow[]): Promise<void>;
}

/** Due work claimed for the hand-off, and in how many milliseconds the earliest other waiting row is due (null: none waits). */
export interface DueWork {
  items: WorkItem[];
  nextDueInMs: number | null;
}

/**
 * Recorded work of one kind (messages to send, deliveries to make): rows that say when their next
 * attempt is due. `claimDue` takes due rows for this hand-off, pushing their due time past a
 * lease so that no other relay hands them on meanwhile, and answers the attempts to start; the
 * job claims its row for that attempt. A job lost with a crash leaves its row due again when the
 * lease ends.
 */
export interface WorkSource {
  job: JobName;
  /** The table of its rows: a commit that inserts into it, or makes a row of it due now, wakes the relay. */
  table: string;
  claimDue(db: Db, limit: number, leaseMs: number): Promise<DueWork>;
  /** Makes the rows whose attempt died with its instance due again; answers how many. */
  releaseAbandoned(db: Db): Promise<number>;
}

/** When the relay reads the outbox, or a kind of work, again. */
interface LookOut {
  /** A commit of this instance wrote there since the last look: look at the next cycle. */
  written: boolean;
  /** The time to look again anyway: when the earliest waiting row is due, or UNWATCHED_EVERY_MS after the last look. */
  lookAt: number;
}

/**
 * The one path from a commit to what follows it. Every cycle it relays the committed events to
 * the consumers that registered (claimed with FOR UPDATE SKIP LOCKED, so replicas share the
 * outbox and each event is relayed once), then hands every due piece of recorded work to the
 * job queue. What was committed before a crash is still unrelayed or due after it, and goes out
 * on restart. A cycle runs every 100 ms, and at once after any commit that recorded an event or
 * new work (Database.onCommittedWrites), whoever committed it. A cycle reads only what may have
 * something for it: the outbox or a kind of work that a commit of this instance wrote to, a kind
 * whose earliest waiting row is due by now (each claim answers when that is; a commit that gives
 * rows another due time has it read again), and everything every UNWATCHED_EVERY_MS. An idle
 * instance costs the database a look a second instead of ten.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly consumers: EventConsumer[] = [];
  private readonly sources: { source: WorkSource; lookOut: LookOut }[] = [];
  private readonly outbox: LookOut = { written: true, lookAt: 0 };
  private readonly cycle = new PeriodicTask({
    name: 'outbox-relay',
    run: () => this.relayPending(),
    everyMs: () => POLL_EVERY_MS,
    failed: (error) => this.logger.warn(`Relay failed, retrying: ${error.message}`),
  });
  /** 0: at the first cycle, so that a restart takes up what the previous process left at once. */
  private abandonedCheckedAt = 0;

  constructor(
    private readonly database: Database,
    private readonly events: EventRepository,
    private readonly queue: JobQueue,
    private readonly instances: InstanceRegistry,
    private readonly metrics: Metrics,
  ) {}

  /** For modules that follow events; called while the application starts. */
  addConsumer(consumer: EventConsumer): void {
    this.consumers.push(consumer);
  }

  /** For modules that record work; called while the application starts. */
  addWorkSource(source: WorkSource): void {
    this.sources.push({ source, lookOut: { written: true, lookAt: 0 } });
  }

  onApplicationBootstrap(): void {
    this.metrics.onScrape(async () => {
      const oldest = await this.events.oldestUnrelayedAt(this.database.db);
      this.metrics.outboxLag.set(oldest === null ? 0 : Math.max(0, Date.now() - oldest.getTime()) / 1000);
    });
    this.database.onCommittedWrites(['events'], () => this.wakeFor(this.outbox));
    for (const { source, lookOut } of this.sources) {
      this.database.onCommittedWrites([source.table], () => this.wakeFor(lookOut));
      // Not woken: the new due time is later than now; the next cycle reads it.
      this.database.onCommittedReschedules([source.table], () => (lookOut.written = true));
    }
    this.cycle.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.cycle.stop();
  }

  private wakeFor(lookOut: LookOut): void {
    lookOut.written = true;
    this.cycle.wake();
  }

  /** Relays every pending event and hands on every due piece of work; answers how many events it relayed. */
  async relayPending(): Promise<number> {
    let total = 0;
    if (lookNow(this.outbox)) {
      for (;;) {
        const relayed = await this.relayEvents();
        total += relayed;
        if (relayed < BATCH) break;
      }
      this.outbox.lookAt = Date.now() + UNWATCHED_EVERY_MS;
    }
    if (Date.now() - this.abandonedCheckedAt >= ABANDONED_EVERY_MS) {
      this.abandonedCheckedAt = Date.now();
      await this.releaseAbandoned();
    }
    // While the queue cannot take jobs (Redis down), due work stays unclaimed, ready to go the
    // moment it can: claimed now, it would wait for its lease to end.
    for (const { source, lookOut } of this.sources) {
      if (!this.queue.accepting) break;
      if (!lookNow(lookOut)) continue;
      let due: DueWork;
      do due = await this.handOn(source);
      while (this.queue.accepting && due.items.length === BATCH);
      lookOut.lookAt = Date.now() + Math.min(due.nextDueInMs ?? Infinity, UNWATCHED_EVERY_MS);
    }
    return total;
  }

  private async relayEvents(): Promise<number> {
    const events = await this.database.transaction(async (db) => {
      await this.events.lockForRelay(db);
      const claimed = await this.events.claimUnrelayed(db, BATCH);
      if (claimed.length === 0) return claimed;
      for (const consumer of this.consumers) await consumer.record?.(db, claimed);
      await this.events.markRelayed(
        db,
        claimed.map((event) => event.id),
      );
      return claimed;
    });
    if (events.length === 0) return 0;
    for (const consumer of this.consumers) {
      await consumer
        .afterCommit?.(events)
        .catch((error: unknown) => this.logger.warn(`An event consumer failed after relaying: ${(error as Error).message}`));
    }
    return events.length;
  }

  /** The attempts that died with their instance become due again, and are handed on below. */
  private async releaseAbandoned(): Promise<void> {
    await this.instances.removeDead();
    for (const { source } of this.sources) {
      const released = await source.releaseAbandoned(this.database.db);
      if (released > 0) this.logger.warn(`${released} ${source.job} attempt(s) of an instance that died are due again`);
    }
  }

  /** Claims a batch of due work and queues one job per attempt, the batch at once; answers what it claimed. */
  private async handOn(source: WorkSource): Promise<DueWork> {
    const due = await source.claimDue(this.database.db, BATCH, this.queue.handoffLeaseMs);
    await this.queue.addAll(source.job, due.items);
    return due;
  }
}

/** Whether a cycle reads there now. Until the read sets the next time, the next cycle reads there again (a read that fails is retried). */
function lookNow(lookOut: LookOut): boolean {
  if (!lookOut.written && Date.now() < lookOut.lookAt) return false;
  lookOut.written = false;
  lookOut.lookAt = 0;
  return true;
}

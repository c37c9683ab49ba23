import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import type { EventRow } from './event.entity';
import { EventRepository } from './event.repository';

/** Rows deleted per statement: short transactions, short locks, whatever the backlog. */
const BATCH = 1000;
const EVERY_MS = 3_600_000;
/** The first prune runs this long after start-up at most (and a prune this much later than the hour), so replicas started together spread out. */
const JITTER_MS = 60_000;

/** A module's part in the prune, registered while the application starts (as the relay's consumers are). */
export interface RetentionParticipant {
  /** Deletes up to `limit` of the module's finished records older than `before`; answers how many. Called until it answers less. */
  prune?(db: Db, before: Date, limit: number): Promise<number>;
  /** Of these events, about to be deleted, those the module's records still refer to: they are kept. Called in the prune's transaction. */
  eventsInUse?(db: Db, eventIds: string[]): Promise<string[]>;
}

export interface PruneResult {
  before: Date;
  events: number;
  /** Records the participants deleted (webhook deliveries, e-mails, account links). */
  records: number;
}

/**
 * Deletes what is kept only for a while: relayed events older than EVENT_RETENTION and the
 * participants' finished records (webhook deliveries) older than it, once shortly after start-up
 * and then every hour. Participants go first; an event is deleted only when no participant still
 * refers to it, so a pending delivery (which its event's ON DELETE CASCADE would take along) is
 * never lost. Messages are not events: they are never pruned. Batches are locked FOR UPDATE SKIP
 * LOCKED, so replicas pruning at once share the work.
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RetentionService.name);
  private readonly participants: RetentionParticipant[] = [];
  private readonly task = new PeriodicTask({
    name: 'retention',
    run: () => this.pruneNow(),
    everyMs: () => EVERY_MS + Math.random() * JITTER_MS,
    failed: (error) => this.logger.warn(`Pruning old events failed, trying again in an hour: ${error.message}`),
  });

  constructor(
    private readonly database: Database,
    private readonly events: EventRepository,
    private readonly config: AppConfig,
  ) {}

  register(participant: RetentionParticipant): void {
    this.participants.push(participant);
  }

  onApplicationBootstrap(): void {
    this.task.start(Math.random() * JITTER_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** Prunes everything older than EVENT_RETENTION now; answers what it deleted. */
  async pruneNow(now = new Date()): Promise<PruneResult> {
    const before = new Date(now.getTime() - this.config.eventRetentionMs);
    let records = 0;
    for (const participant of this.participants) {
      if (!participant.prune) continue;
      for (let deleted = BATCH; deleted === BATCH;) {
        deleted = await participant.prune(this.database.db, before, BATCH);
        records += deleted;
      }
    }
    let events = 0;
    let after: Pick<EventRow, 'id' | 'created_at'> | null = null;
    for (let claimed = BATCH; claimed === BATCH;) {
      const batch = await this.database.transaction(async (db) => {
        const expired = await this.events.claimExpired(db, before, after, BATCH);
        const ids = expired.map((event) => event.id);
        const inUse = new Set<string>();
        for (const participant of this.participants) {
          for (const id of (await participant.eventsInUse?.(db, ids)) ?? []) inUse.add(id);
        }
        events += await this.events.delete(
          db,
          ids.filter((id) => !inUse.has(id)),
        );
        return expired;
      });
      claimed = batch.length;
      after = batch[batch.length - 1] ?? after;
    }
    if (events + records > 0) {
      this.logger.log(
        `Deleted ${events} event(s) and ${records} finished record(s) (webhook deliveries, e-mails, account links) older than ${before.toISOString()} (EVENT_RETENTION)`,
      );
    }
    return { before, events, records };
  }
}

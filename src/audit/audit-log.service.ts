import { BadRequestException, BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { newUuid, parsePublicId } from '../common/ids';
import { mapPage, type Page } from '../common/pagination';
import { type RequestActor, requestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { PeriodicTask } from '../common/periodic-task';
import type { AuditAction } from './audit-entry.entity';
import { AuditFilter, AuditLogRepository } from './audit-log.repository';
import { AuditEntryResponse, AuditLogQuery } from './audit.dto';

const PRUNE_EVERY_MS = 3_600_000;
/** The first prune runs this long after start-up at most, so replicas started together spread out. */
const PRUNE_JITTER_MS = 60_000;
const PRUNE_BATCH = 1000;

/** What an audit entry says beyond its action. */
export interface AuditRecord {
  /** The public id of what the action was done to. */
  target?: string | null;
  /** What changed; never a secret. */
  details?: Record<string, unknown>;
  /** Who did it, when not the caller of the current request (a login names the user logging in). */
  actor?: RequestActor | null;
}

/**
 * The audit log: every security-relevant action, recorded in the transaction of the action (so an
 * action and its entry exist together or not at all), with the caller and address of the request
 * it was done in. Read by admins, never written or deleted through the API; pruned after
 * AUDIT_RETENTION.
 */
@Injectable()
export class AuditLogService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AuditLogService.name);
  private readonly pruning = new PeriodicTask({
    name: 'audit-retention',
    run: () => this.pruneNow(),
    everyMs: () => PRUNE_EVERY_MS + Math.random() * PRUNE_JITTER_MS,
    failed: (error) => this.logger.warn(`Pruning the audit log failed, trying again in an hour: ${error.message}`),
  });

  constructor(
    private readonly database: Database,
    private readonly entries: AuditLogRepository,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.pruning.start(Math.random() * PRUNE_JITTER_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.pruning.stop();
  }

  /** Deletes the entries older than AUDIT_RETENTION at `now`, in batches (replicas pruning at once share them); answers how many. */
  async pruneNow(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.auditRetentionMs);
    let total = 0;
    for (let deleted = PRUNE_BATCH; deleted === PRUNE_BATCH;) {
      deleted = await this.entries.prune(this.database.db, before, PRUNE_BATCH);
      total += deleted;
    }
    if (total > 0) this.logger.log(`Deleted ${total} audit log entries older than ${before.toISOString()} (AUDIT_RETENTION)`);
    return total;
  }

  /** Records `action` in the caller's transaction. */
  async record(db: Db, action: AuditAction, record: AuditRecord = {}): Promise<void> {
    const context = requestContext.getStore();
    const actor = record.actor === undefined ? (context?.actor ?? null) : record.actor;
    const at = new Date();
    await this.entries.insert(db, {
      id: newUuid(at.getTime()),
      at,
      actor_id: actor?.id ?? null,
      actor: actor?.email ?? null,
      ip: context?.ip ?? null,
      action,
      target: record.target ?? null,
      details: record.details ?? {},
    });
  }

  /** Records `action` in a transaction of its own (an action that changes nothing else, such as a failed login). */
  recordAlone(action: AuditAction, record: AuditRecord = {}): Promise<void> {
    return this.record(this.database.db, action, record);
  }

  async list(query: AuditLogQuery): Promise<Page<AuditEntryResponse>> {
    const filter: AuditFilter = {
      actorId: query.actor === undefined ? undefined : (parsePublicId('user', query.actor) ?? undefined),
      action: query.action,
      from: query.from === undefined ? undefined : new Date(query.from),
      to: query.to === undefined ? undefined : new Date(query.to),
    };
    if (filter.from && filter.to && filter.from >= filter.to) throw new BadRequestException('from must be before to');
    return mapPage(await this.entries.list(this.database.db, filter, query), AuditEntryResponse.of);
  }
}

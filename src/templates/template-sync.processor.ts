import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { OutboxRelay } from '../events/outbox-relay';
import { JobQueue, retryDelay, WorkItem } from '../queue/job-queue';
import { TemplatesService } from './templates.service';

/** Longer than reading a large catalogue can take (one 10 s timeout per page of 100); a crash mid-sync leaves it due again after its heartbeat stops. */
const SYNC_LEASE_MS = 10 * 60_000;

/**
 * Syncs the template catalogue as recorded work: one row says when the next sync is due, and the
 * relay hands it to this job, so replicas share one sync per MESSAGING_TEMPLATE_SYNC_INTERVAL
 * (the claim of the row for an attempt keeps it once). Due at start (not waited for), then every
 * interval after a success; a failure is logged and tried again on MESSAGING_RETRY_SCHEDULE (at
 * most one interval later). A channel webhook's template change makes it due in its transaction.
 */
@Injectable()
export class TemplateSyncProcessor implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(TemplateSyncProcessor.name);

  constructor(
    private readonly queue: JobQueue,
    private readonly relay: OutboxRelay,
    private readonly templates: TemplatesService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register('template.sync', { concurrency: 1, handle: (work) => this.sync(work) });
    this.relay.addWorkSource({
      job: 'template.sync',
      claimDue: (db, limit, leaseMs) => this.templates.claimDueSync(db, limit, leaseMs),
      releaseAbandoned: (db) => this.templates.releaseAbandonedSync(db),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.templates.requestSync();
      this.relay.wake();
    } catch (error) {
      this.logger.warn(`The template sync at start could not be scheduled: ${(error as Error).message}`);
    }
  }

  async sync(work: WorkItem): Promise<void> {
    const claimed = await this.templates.claimSyncAttempt(work, SYNC_LEASE_MS);
    if (!claimed) return;
    const interval = this.config.messagingTemplateSyncIntervalMs;
    try {
      await this.templates.sync();
    } catch (error) {
      const failures = claimed.failures + 1;
      const delay = Math.min(retryDelay(this.config.messagingRetryScheduleMs, failures), interval);
      const reason = (error as Error).message;
      this.logger.warn(`Template sync failed (${failures} in a row), next attempt in ${Math.round(delay / 1000)} s: ${reason}`);
      await this.templates.recordSyncFailed(claimed.attempts, reason, new Date(Date.now() + delay));
      return;
    }
    await this.templates.recordSynced(claimed.attempts, new Date(Date.now() + interval));
  }
}

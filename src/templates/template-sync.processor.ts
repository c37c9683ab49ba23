import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { retryDelay } from '../queue/job-queue';
import { RecordedWork } from '../recorded-work/recorded-work';
import type { TemplateSyncRow } from './template.entity';
import { SYNC_WORK } from './template.repository';
import { TemplatesService } from './templates.service';

/** Longer than reading a large catalogue can take (one 10 s timeout per page of 100); a crash mid-sync leaves it due again after its heartbeat stops. */
const SYNC_LEASE_MS = 10 * 60_000;

/**
 * Syncs each template catalogue as recorded work that never finishes: one row per catalogue says
 * when its next sync is due, so replicas share one sync of it per MESSAGING_TEMPLATE_SYNC_INTERVAL.
 * Due at start and when an inbox changes (not waited for), then every interval after a success; a
 * failure is logged and tried again on MESSAGING_RETRY_SCHEDULE (at most one interval later). A
 * channel webhook's template change makes its catalogue's due in its transaction. A catalogue no
 * active inbox reads any more is parked.
 */
@Injectable()
export class TemplateSyncProcessor implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(TemplateSyncProcessor.name);

  constructor(
    private readonly work: RecordedWork,
    private readonly templates: TemplatesService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const interval = () => this.config.messagingTemplateSyncIntervalMs;
    this.work.register<TemplateSyncRow>({
      job: 'template.sync',
      ...SYNC_WORK,
      leaseMs: SYNC_LEASE_MS,
      // A few catalogues at once: each sync is a handful of page reads.
      concurrency: 4,
      attempt: async (claimed) => {
        if (await this.templates.syncCatalogue(claimed.id, claimed.attempts)) {
          await this.templates.recordSynced(claimed.id, claimed.attempts, new Date(Date.now() + interval()));
        } else {
          this.logger.log(`No active inbox reads the template catalogue ${claimed.id} any more: its sync waits until one does`);
          await this.templates.parkSync(claimed.id, claimed.attempts);
        }
      },
      failure: (error) => ({ reason: (error as Error).message, retryable: true }),
      nextAttemptInMs: (claimed) => Math.min(retryDelay(this.config.messagingRetryScheduleMs, claimed.failures + 1), interval()),
      retry: async (claimed, at, failure) => {
        const inSeconds = Math.round((at.getTime() - Date.now()) / 1000);
        this.logger.warn(`Template sync failed (${claimed.failures + 1} in a row), next attempt in ${inSeconds} s: ${failure.reason}`);
        await this.templates.recordSyncFailed(claimed.id, claimed.attempts, failure.reason, at);
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.templates.requestSync();
    } catch (error) {
      this.logger.warn(`The template sync at start could not be scheduled: ${(error as Error).message}`);
    }
  }
}

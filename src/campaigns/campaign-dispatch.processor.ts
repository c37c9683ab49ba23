import { Injectable, OnModuleInit } from '@nestjs/common';
import { RecordedWork } from '../recorded-work/recorded-work';
import type { ClaimedWork } from '../recorded-work/work-kind';
import { DISPATCH_WORK } from './campaign.repository';
import { CampaignsService } from './campaigns.service';

/** Longer than a step can take (a quarter of a second's sends, each a few statements). */
const STEP_LEASE_MS = 60_000;
/** A step fails on a bug or the database being away: the campaign waits, then pauses itself with the reason after these. */
const RETRY_SCHEDULE_MS = [1_000, 5_000, 30_000, 60_000, 300_000];

interface CampaignToStep extends ClaimedWork {
  /** Steps failed in a row so far. */
  failures: number;
}

/** The campaigns as recorded work: `campaign.dispatch` runs one step of a scheduled or running campaign (CampaignsService.step). */
@Injectable()
export class CampaignDispatchProcessor implements OnModuleInit {
  constructor(
    private readonly work: RecordedWork,
    private readonly campaigns: CampaignsService,
  ) {}

  onModuleInit(): void {
    this.work.register<CampaignToStep>({
      job: 'campaign.dispatch',
      ...DISPATCH_WORK,
      leaseMs: STEP_LEASE_MS,
      attempt: (campaign) => this.campaigns.step(campaign.id, campaign.attempts),
      failure: (error) => ({ reason: (error as Error).message, retryable: true }),
      nextAttemptInMs: (campaign) => RETRY_SCHEDULE_MS[campaign.failures] ?? null,
      retry: (campaign, at, failure) => this.campaigns.recordStepFailed(campaign.id, campaign.attempts, failure.reason, at),
      fail: (campaign, failure) => this.campaigns.pauseAfterFailures(campaign.id, campaign.attempts, failure.reason),
    });
  }
}

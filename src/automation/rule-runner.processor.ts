import { Injectable, OnModuleInit } from '@nestjs/common';
import { OutboxRelay } from '../events/outbox-relay';
import { RetentionService } from '../events/retention.service';
import { RecordedWork } from '../recorded-work/recorded-work';
import { onSchedule } from '../recorded-work/work-kind';
import { RuleRepository, TRIGGER_WORK } from './rule.repository';
import { RulesService } from './rules.service';

/** Longer than a run can take: a run that outlives it may be attempted twice, and the second finds nothing pending. */
const RUN_LEASE_MS = 60_000;
/** A run fails on a bug or a database error; the database coming back is worth a few more tries. */
const RETRY_SCHEDULE_MS = [1_000, 10_000, 60_000, 300_000];

/**
 * The rules as recorded work: the relay records a trigger for each event they run on (in the
 * transaction that relays it), and the `automation.run` job runs it (RulesService.runTrigger).
 * The retention prune takes the run log and the triggers that failed for good after EVENT_RETENTION.
 */
@Injectable()
export class RuleRunner implements OnModuleInit {
  constructor(
    private readonly relay: OutboxRelay,
    private readonly retention: RetentionService,
    private readonly work: RecordedWork,
    private readonly rules: RuleRepository,
    private readonly service: RulesService,
  ) {}

  onModuleInit(): void {
    this.relay.addConsumer({ record: (db, events) => this.rules.recordTriggers(db, events, new Date()) });
    // The run log is kept as long as the events it ran on (EVENT_RETENTION).
    this.retention.register({ prune: (db, before, limit) => this.rules.prune(db, before, limit) });
    this.work.register({
      job: 'automation.run',
      ...TRIGGER_WORK,
      leaseMs: RUN_LEASE_MS,
      errorColumn: 'error',
      attempt: (trigger) => this.service.runTrigger(trigger.id),
      failure: (error) => ({ reason: (error as Error).message, retryable: true }),
      nextAttemptInMs: onSchedule(() => RETRY_SCHEDULE_MS),
      fail: (trigger, failure) => this.service.failTrigger(trigger.id, failure.reason),
    });
  }
}

import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { OutboxRelay } from '../events/outbox-relay';
import { RetentionService } from '../events/retention.service';
import { JobQueue, retryDelay, WorkItem } from '../queue/job-queue';
import { Mailer, MailerError } from './mailer';
import { MailService } from './mail.service';

/** Longer than an attempt can take (the providers' 10 s timeouts): a crash mid-send leaves the e-mail due again after this. */
const SEND_LEASE_MS = 15_000;
/** E-mails one instance sends at once: they wait on the provider, not on CPU. */
const CONCURRENCY = 8;

/**
 * Sends recorded e-mails through the Mailer, one attempt per job. A transient failure (429, 5xx,
 * a 4xx SMTP reply, no answer) is tried again on EMAIL_RETRY_SCHEDULE, a provider's Retry-After
 * respected; a refusal, or the last failed attempt, marks the e-mail failed with the provider's
 * reason. The row is the record of the work: the relay hands each due attempt on, and the claim
 * for that attempt keeps it once. Finished e-mails are pruned after EVENT_RETENTION.
 */
@Injectable()
export class EmailSendProcessor implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(EmailSendProcessor.name);

  constructor(
    private readonly queue: JobQueue,
    private readonly relay: OutboxRelay,
    private readonly retention: RetentionService,
    private readonly mail: MailService,
    private readonly mailer: Mailer,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register('email.send', { concurrency: CONCURRENCY, handle: (work) => this.send(work) });
    this.relay.addWorkSource({
      job: 'email.send',
      claimDue: (db, limit, leaseMs) => this.mail.claimDue(db, limit, leaseMs),
      releaseAbandoned: (db) => this.mail.releaseAbandoned(db),
    });
    this.retention.register({ prune: (db, before, limit) => this.mail.pruneFinished(db, before, limit) });
    if (!this.mailer.delivers) {
      this.logger.warn(
        'EMAIL_PROVIDER is not set: no e-mail is sent. Invitations answer their invite_url to the admin; password resets and notification e-mails reach nobody' +
          (this.config.nodeEnv === 'development' ? ' (in development each e-mail is written to this log instead)' : ''),
      );
    }
  }

  beforeApplicationShutdown(): void {
    this.mailer.close();
  }

  async send(work: WorkItem): Promise<void> {
    const email = await this.mail.claimAttempt(work, SEND_LEASE_MS);
    if (!email) return;
    let providerMessageId: string | null;
    try {
      providerMessageId = await this.mailer.send({ id: email.id, from: this.config.emailFrom, to: email.to, ...email.content });
    } catch (error) {
      const failure =
        error instanceof MailerError ? error : new MailerError(`The e-mail could not be sent: ${(error as Error).message}`, true);
      const schedule = this.config.emailRetryScheduleMs;
      if (failure.retryable && email.attempts <= schedule.length) {
        const delay = retryDelay(schedule, email.attempts, failure.retryAfterMs ?? 0);
        await this.mail.retryAt(email.id, new Date(Date.now() + delay), failure.message);
        return;
      }
      this.logger.warn(`E-mail ${email.id} (${email.kind}) failed after ${email.attempts} attempt(s): ${failure.message}`);
      await this.mail.markFailed(email.id, failure.message);
      return;
    }
    await this.mail.markSent(email.id, providerMessageId);
  }
}

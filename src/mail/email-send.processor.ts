import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { SecretUnreadableError } from '../config/secret-box';
import { RetentionService } from '../events/retention.service';
import { RecordedWork } from '../recorded-work/recorded-work';
import { onSchedule, type WorkFailure } from '../recorded-work/work-kind';
import { Mailer, MailerError } from './mailer';
import { MailService } from './mail.service';
import { ClaimedEmailRow, EMAIL_WORK } from './outbound-email.repository';

/** Longer than an attempt can take (the providers' 10 s timeouts): a crash mid-send leaves the e-mail due again after this. */
const SEND_LEASE_MS = 15_000;
/** E-mails one instance sends at once: they wait on the provider, not on CPU. */
const CONCURRENCY = 8;

/**
 * Sends recorded e-mails through the Mailer, as recorded work (the outbound_emails row). A
 * transient failure (429, 5xx, a 4xx SMTP reply, no answer) is tried again on
 * EMAIL_RETRY_SCHEDULE, a provider's Retry-After respected; a refusal, or the last failed attempt,
 * marks the e-mail failed with the provider's reason, as does content no configured key opens.
 * Finished e-mails are pruned after EVENT_RETENTION.
 */
@Injectable()
export class EmailSendProcessor implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(EmailSendProcessor.name);

  constructor(
    private readonly work: RecordedWork,
    private readonly retention: RetentionService,
    private readonly mail: MailService,
    private readonly mailer: Mailer,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.work.register<ClaimedEmailRow>({
      job: 'email.send',
      ...EMAIL_WORK,
      leaseMs: SEND_LEASE_MS,
      concurrency: CONCURRENCY,
      errorColumn: 'last_error',
      attempt: async (email) => {
        const content = this.mail.contentOf(email);
        await this.mail.markSent(
          email.id,
          await this.mailer.send({ id: email.id, from: this.config.emailFrom, to: email.to_address, ...content }),
        );
      },
      failure: (error, email) => this.judge(error, email),
      nextAttemptInMs: onSchedule(() => this.config.emailRetryScheduleMs),
      fail: async (email, failure) => {
        this.logger.warn(`E-mail ${email.id} (${email.kind}) failed after ${email.attempts} attempt(s): ${failure.reason}`);
        await this.mail.markFailed(email.id, failure.reason);
      },
    });
    this.retention.register({ prune: (db, before, limit) => this.mail.pruneFinished(db, before, limit) });
    if (!this.mailer.delivers) {
      this.logger.warn(
        'EMAIL_PROVIDER is not set: no e-mail is sent. Invitations answer their invite_url to the admin; password resets and notification e-mails reach nobody' +
          (this.config.nodeEnv === 'development' ? ' (in development each e-mail is written to this log instead)' : ''),
      );
    }
  }

  /** After the queue has let the sends running here finish (its before-shutdown hook). */
  onApplicationShutdown(): void {
    this.mailer.close();
  }

  private judge(error: unknown, email: ClaimedEmailRow): WorkFailure {
    if (error instanceof SecretUnreadableError) {
      const reason = `The e-mail cannot be decrypted: ${error.message}`;
      this.logger.error(`E-mail ${email.id}: ${reason}`);
      return { reason, retryable: false };
    }
    if (error instanceof MailerError) return { reason: error.message, retryable: error.retryable, retryAfterMs: error.retryAfterMs };
    return { reason: `The e-mail could not be sent: ${(error as Error).message}`, retryable: true };
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { newUuid } from '../common/ids';
import { SecretBox, SecretUnreadableError } from '../config/secret-box';
import { Database } from '../database/database';
import { InstanceRegistry } from '../database/instance-registry';
import type { Db } from '../database/sql';
import { OutboxRelay } from '../events/outbox-relay';
import type { WorkItem } from '../queue/job-queue';
import type { EmailContent } from './email-content';
import { Mailer } from './mailer';
import type { EmailKind } from './outbound-email.entity';
import { OutboundEmailRepository } from './outbound-email.repository';

/** An e-mail to record: to whom, why, and what it says. */
export interface NewEmail {
  /** The uuid of the user it is for, if any: their pending e-mails go when they are deleted. */
  userId: string | null;
  kind: EmailKind;
  to: string;
  content: EmailContent;
}

/** An e-mail claimed for one attempt, its content opened. */
export interface ClaimedEmail {
  id: string;
  attempts: number;
  kind: EmailKind;
  to: string;
  content: EmailContent;
}

/**
 * E-mail as recorded work. Other modules `enqueue` in their own transaction, so an e-mail exists
 * exactly when what causes it was committed, then `wake` the relay after the commit; the send job
 * (EmailSendProcessor) does the rest, with retries.
 */
@Injectable()
export class MailService {
  private readonly logger = new Logger(MailService.name);

  constructor(
    private readonly database: Database,
    private readonly emails: OutboundEmailRepository,
    private readonly relay: OutboxRelay,
    private readonly mailer: Mailer,
    private readonly secrets: SecretBox,
    private readonly instance: InstanceRegistry,
  ) {}

  /** Whether e-mail reaches anyone (an EMAIL_PROVIDER is set): otherwise an invitation's link is answered to the admin. */
  get delivers(): boolean {
    return this.mailer.delivers;
  }

  /** Records an e-mail in the caller's transaction, due now. */
  async enqueue(db: Db, email: NewEmail): Promise<void> {
    const now = new Date();
    await this.emails.insert(db, {
      id: newUuid(now.getTime()),
      user_id: email.userId,
      kind: email.kind,
      to_address: email.to,
      content: this.secrets.seal(JSON.stringify(email.content)),
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      claimed_by: null,
      provider_message_id: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    });
  }

  /** After the commit that recorded e-mails: hand them on now rather than at the relay's next poll. */
  wake(): void {
    this.relay.wake();
  }

  claimDue(db: Db, limit: number, leaseMs: number): Promise<WorkItem[]> {
    return this.emails.claimDue(db, limit, leaseMs);
  }

  releaseAbandoned(db: Db): Promise<number> {
    return this.emails.releaseAbandoned(db);
  }

  pruneFinished(db: Db, before: Date, limit: number): Promise<number> {
    return this.emails.pruneFinished(db, before, limit);
  }

  /**
   * Takes an e-mail for one attempt; null when it is finished or another worker took this attempt.
   * Content no configured key opens (ENCRYPTION_KEY changed without the old one in
   * ENCRYPTION_KEY_PREVIOUS) fails the e-mail, saying so.
   */
  async claimAttempt(work: WorkItem, leaseMs: number): Promise<ClaimedEmail | null> {
    const row = await this.emails.claimAttempt(this.database.db, work, leaseMs, this.instance.id);
    if (!row) return null;
    try {
      const content = JSON.parse(this.secrets.open(row.content)) as EmailContent;
      return { id: row.id, attempts: row.attempts, kind: row.kind, to: row.to_address, content };
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      const reason = `The e-mail cannot be decrypted: ${error.message}`;
      this.logger.error(`E-mail ${row.id}: ${reason}`);
      await this.emails.markFailed(this.database.db, row.id, reason);
      return null;
    }
  }

  markSent(id: string, providerMessageId: string | null): Promise<void> {
    return this.emails.markSent(this.database.db, id, providerMessageId);
  }

  markFailed(id: string, error: string): Promise<void> {
    return this.emails.markFailed(this.database.db, id, error);
  }

  retryAt(id: string, at: Date, error: string): Promise<void> {
    return this.emails.retryAt(this.database.db, id, at, error);
  }
}

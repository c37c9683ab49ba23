import { Injectable } from '@nestjs/common';
import { newUuid } from '../common/ids';
import { SecretBox } from '../config/secret-box';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import type { EmailContent } from './email-content';
import { Mailer } from './mailer';
import type { EmailKind } from './outbound-email.entity';
import { ClaimedEmailRow, OutboundEmailRepository } from './outbound-email.repository';

/** An e-mail to record: to whom, why, and what it says. */
export interface NewEmail {
  /** The uuid of the user it is for, if any: their pending e-mails go when they are deleted. */
  userId: string | null;
  kind: EmailKind;
  to: string;
  content: EmailContent;
}

/**
 * E-mail as recorded work. Other modules `enqueue` in their own transaction, so an e-mail exists
 * exactly when what causes it was committed (the commit wakes the relay); the send job
 * (EmailSendProcessor) does the rest, with retries.
 */
@Injectable()
export class MailService {
  constructor(
    private readonly database: Database,
    private readonly emails: OutboundEmailRepository,
    private readonly mailer: Mailer,
    private readonly secrets: SecretBox,
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

  pruneFinished(db: Db, before: Date, limit: number): Promise<number> {
    return this.emails.pruneFinished(db, before, limit);
  }

  /**
   * What a claimed e-mail says, opened. Content no configured key opens (ENCRYPTION_KEY changed
   * without the old one in ENCRYPTION_KEY_PREVIOUS) throws SecretUnreadableError.
   */
  contentOf(email: ClaimedEmailRow): EmailContent {
    return JSON.parse(this.secrets.open(email.content)) as EmailContent;
  }

  markSent(id: string, providerMessageId: string | null): Promise<void> {
    return this.emails.markSent(this.database.db, id, providerMessageId);
  }

  markFailed(id: string, error: string): Promise<void> {
    return this.emails.markFailed(this.database.db, id, error);
  }
}

import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { MailService } from '../mail/mail.service';
import { digestEmail, notificationEmail } from './notification-emails';
import { NotificationRepository } from './notification.repository';

/** Notifications e-mailed one by one per transaction, and digests looked for per sweep. */
const BATCH = 100;
/** How often a sweep runs at most and at least: a fifth of the delay, so an e-mail goes out at most 20% late. */
const MIN_SWEEP_MS = 200;
const MAX_SWEEP_MS = 10_000;

/**
 * E-mails notifications still unread EMAIL_NOTIFICATION_DELAY after they were created: one e-mail
 * each to users on `immediate`, one digest every EMAIL_DIGEST_INTERVAL (an hour) listing them to
 * users on `digest`, nothing to users on `off`. A periodic sweep that replicas share: each
 * notification is claimed with FOR UPDATE SKIP LOCKED and its e-mail recorded (MailService) in the
 * transaction that marks it e-mailed, so none is e-mailed twice; a digest is claimed per user in
 * `notification_digests`, so two replicas never send the same hour's digest.
 */
@Injectable()
export class NotificationEmailer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(NotificationEmailer.name);
  private readonly everyMs: number;
  private readonly task = new PeriodicTask({
    name: 'notification-emailer',
    run: () => this.sweep(),
    everyMs: () => this.everyMs,
    failed: (error) => this.logger.warn(`Notification e-mails not swept, trying again: ${error.message}`),
  });

  constructor(
    private readonly database: Database,
    private readonly notifications: NotificationRepository,
    private readonly mail: MailService,
    private readonly config: AppConfig,
  ) {
    this.everyMs = Math.min(MAX_SWEEP_MS, Math.max(MIN_SWEEP_MS, Math.floor(config.emailNotificationDelayMs / 5)));
  }

  onApplicationBootstrap(): void {
    this.task.start(this.everyMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** E-mails every notification due now, one by one or in digests; answers how many e-mails it recorded. */
  async sweep(): Promise<number> {
    let emails = 0;
    for (let claimed = BATCH; claimed === BATCH;) {
      const batch = await this.emailSingly();
      claimed = batch.claimed;
      emails += batch.emails;
    }
    for (const userId of await this.notifications.usersWithDigestDue(this.database.db, this.config.emailDigestIntervalMs, BATCH)) {
      if (await this.sendDigest(userId)) emails += 1;
    }
    return emails;
  }

  private async emailSingly(): Promise<{ claimed: number; emails: number }> {
    return this.database.transaction(async (db) => {
      const due = await this.notifications.claimDueSingly(db, BATCH);
      let emails = 0;
      for (const notification of due) {
        if (notification.user_email_notifications !== 'immediate') continue;
        await this.mail.enqueue(db, {
          userId: notification.user_id,
          kind: 'notification',
          to: notification.user_email,
          content: notificationEmail(this.config.appUrl, notification.user_name, notification),
        });
        emails += 1;
      }
      await this.notifications.clearEmailDue(
        db,
        due.map((notification) => notification.id),
      );
      return { claimed: due.length, emails };
    });
  }

  /** Answers whether this sweep sent the user's digest. */
  private async sendDigest(userId: string): Promise<boolean> {
    return this.database.transaction(async (db) => {
      const due = await this.notifications.claimDueForDigest(db, userId);
      if (due.length === 0) return false;
      if (!(await this.notifications.claimDigest(db, userId, this.config.emailDigestIntervalMs))) return false;
      await this.mail.enqueue(db, {
        userId,
        kind: 'notification_digest',
        to: due[0].user_email,
        content: digestEmail(this.config.appUrl, due[0].user_name, due),
      });
      await this.notifications.clearEmailDue(
        db,
        due.map((notification) => notification.id),
      );
      return true;
    });
  }
}

import { Injectable } from '@nestjs/common';
import { Db, execute, sql } from '../database/sql';
import type { WorkKind } from '../recorded-work/work-kind';
import type { EmailKind, OutboundEmailRow } from './outbound-email.entity';

/** E-mails not finished, as recorded work (alias `w`), and what an attempt needs (the content, still sealed). */
export const EMAIL_WORK = {
  table: 'outbound_emails',
  waiting: sql`w.status = 'pending'`,
  needs: { where: sql`w.content IS NOT NULL`, columns: sql`w.kind, w.to_address, w.content` },
} satisfies Pick<WorkKind, 'table' | 'waiting' | 'needs'>;

/** What one attempt needs. */
export interface ClaimedEmailRow {
  id: string;
  attempts: number;
  kind: EmailKind;
  to_address: string;
  content: string;
}

/** The SQL of `outbound_emails`. */
@Injectable()
export class OutboundEmailRepository {
  async insert(db: Db, email: OutboundEmailRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO outbound_emails (id, user_id, kind, to_address, content, status, attempts, next_attempt_at, created_at, updated_at)
          VALUES (${email.id}, ${email.user_id}, ${email.kind}, ${email.to_address}, ${email.content}, ${email.status}, ${email.attempts},
                  ${email.next_attempt_at}, ${email.created_at}, ${email.updated_at})`,
    );
  }

  /** The e-mail went out (or, without a provider, was written off): its content is dropped. */
  async markSent(db: Db, id: string, providerMessageId: string | null): Promise<void> {
    await execute(
      db,
      sql`UPDATE outbound_emails SET status = 'sent', content = NULL, provider_message_id = ${providerMessageId}, last_error = NULL,
                 next_attempt_at = NULL, claimed_by = NULL, updated_at = now()
           WHERE id = ${id}`,
    );
  }

  async markFailed(db: Db, id: string, error: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE outbound_emails SET status = 'failed', content = NULL, last_error = ${error}, next_attempt_at = NULL, claimed_by = NULL, updated_at = now()
           WHERE id = ${id}`,
    );
  }

  /**
   * Deletes up to `limit` finished (sent or failed) e-mails whose last change is before `before`,
   * on outbound_emails_finished_idx; rows another replica holds are skipped. Answers how many.
   */
  pruneFinished(db: Db, before: Date, limit: number): Promise<number> {
    return execute(
      db,
      sql`DELETE FROM outbound_emails
           WHERE id IN (SELECT id FROM outbound_emails WHERE status <> 'pending' AND updated_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`,
    );
  }
}

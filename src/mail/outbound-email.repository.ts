import { Injectable } from '@nestjs/common';
import { claimDueWork, msFromNow, releaseAbandonedWork } from '../database/recorded-work';
import { Db, execute, queryOne, sql } from '../database/sql';
import type { WorkItem } from '../queue/job-queue';
import type { EmailKind, OutboundEmailRow } from './outbound-email.entity';

/** An e-mail not finished, as recorded work (alias `w`). */
const EMAIL_WAITING = sql`w.status = 'pending'`;

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

  /** The relay's hand-off: due e-mails, their due time pushed past `leaseMs`, as the attempts to start (on outbound_emails_due_idx). */
  claimDue(db: Db, limit: number, leaseMs: number): Promise<WorkItem[]> {
    return claimDueWork(db, 'outbound_emails', EMAIL_WAITING, limit, leaseMs);
  }

  /** Pending e-mails whose attempt died with its instance: due again now. */
  releaseAbandoned(db: Db): Promise<number> {
    return releaseAbandonedWork(db, 'outbound_emails', EMAIL_WAITING);
  }

  /**
   * Takes a pending e-mail for attempt `attempt`, unless another worker took that attempt: counts
   * it and pushes the due time past the attempt's longest duration, so a crash mid-attempt leaves
   * it due again.
   */
  claimAttempt(db: Db, work: WorkItem, leaseMs: number, instanceId: string): Promise<ClaimedEmailRow | null> {
    return queryOne(
      db,
      sql`UPDATE outbound_emails SET attempts = attempts + 1, next_attempt_at = ${msFromNow(leaseMs)}, claimed_by = ${instanceId}, updated_at = now()
           WHERE id = ${work.id} AND status = 'pending' AND attempts = ${work.attempt - 1} AND content IS NOT NULL
          RETURNING id, attempts, kind, to_address, content`,
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

  async retryAt(db: Db, id: string, at: Date, error: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE outbound_emails SET next_attempt_at = ${at}, last_error = ${error}, claimed_by = NULL, updated_at = now() WHERE id = ${id}`,
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

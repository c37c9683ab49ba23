import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { claimDueWork, msFromNow, releaseAbandonedWork } from '../database/recorded-work';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { EventType } from '../events/event-types';
import type { WorkItem } from '../queue/job-queue';
import type { DeliveryRow, DeliveryStatus } from './webhook.entity';

/** A delivery with its event's type, as DeliveryResponse.of reads it. */
const SELECT_DELIVERY = sql.raw(`SELECT d.id, d.event_id, e.type AS event_type, d.status, d.attempts, d.last_status_code, d.last_response,
       d.last_error, d.next_attempt_at, d.created_at, d.updated_at
  FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`);
/** A delivery not finished, as recorded work (alias `w`). */
const DELIVERY_WAITING = sql`w.status = 'pending'`;
const NEWEST_FIRST = new Keyset<DeliveryRow>({ time: 'd.created_at', id: 'd.id' }, 'DESC', (row) => [row.created_at, row.id]);

/** What one attempt needs: the delivery, its registration and its event. */
export interface ClaimedDeliveryRow {
  id: string;
  attempts: number;
  webhook_id: string;
  webhook_url: string;
  /** As stored: encrypted (SecretBox), or plain text from before encryption. */
  webhook_secret: string;
  webhook_active: boolean;
  event_id: string;
  event_type: EventType;
  event_data: Record<string, unknown>;
  event_created_at: Date;
}

/** How an attempt ended, as stored. */
export interface AttemptRecord {
  status: DeliveryStatus;
  last_status_code: number | null;
  last_response: string | null;
  last_error: string | null;
  next_attempt_at: Date | null;
}

/** The SQL of `webhook_deliveries`: one row per (event, registration), the record of that work. */
@Injectable()
export class DeliveryRepository {
  /** One due delivery per (event, registration) pair; a pair that has one already is skipped. */
  async insertPending(db: Db, deliveries: { id: string; webhook_id: string; event_id: string }[], now: Date): Promise<void> {
    if (deliveries.length === 0) return;
    await execute(
      db,
      sql`INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
          SELECT d.id, d.webhook_id, d.event_id, 'pending', 0, ${now}, ${now}, ${now}
            FROM unnest(${deliveries.map((d) => d.id)}::uuid[], ${deliveries.map((d) => d.webhook_id)}::uuid[], ${deliveries.map((d) => d.event_id)}::uuid[])
                 AS d (id, webhook_id, event_id)
          ON CONFLICT (webhook_id, event_id) DO NOTHING`,
    );
  }

  /** The attempt log of one registration, newest first, on webhook_deliveries_webhook_created_idx. */
  async list(db: Db, webhookId: string, status: DeliveryStatus | undefined, page: PageQuery): Promise<Page<DeliveryRow>> {
    const where = [sql`d.webhook_id = ${webhookId}`];
    if (status) where.push(sql`d.status = ${status}`);
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    const rows = await query<DeliveryRow>(db, sql`${SELECT_DELIVERY} ${sql.where(where)} ${NEWEST_FIRST.orderAndLimit(page)}`);
    return NEWEST_FIRST.page(rows, page);
  }

  find(db: Db, webhookId: string, deliveryId: string): Promise<DeliveryRow | null> {
    return queryOne(db, sql`${SELECT_DELIVERY} WHERE d.id = ${deliveryId} AND d.webhook_id = ${webhookId}`);
  }

  /** Makes a delivery due now, whatever its state; answers whether it exists. */
  async makeDue(db: Db, webhookId: string, deliveryId: string): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now() WHERE id = ${deliveryId} AND webhook_id = ${webhookId}`,
      )) > 0
    );
  }

  /** The relay's hand-off: due deliveries, their due time pushed past `leaseMs`, as the attempts to start. */
  claimDue(db: Db, limit: number, leaseMs: number): Promise<WorkItem[]> {
    return claimDueWork(db, 'webhook_deliveries', DELIVERY_WAITING, limit, leaseMs);
  }

  /** Pending deliveries whose attempt died with its instance: due again now. */
  releaseAbandoned(db: Db): Promise<number> {
    return releaseAbandonedWork(db, 'webhook_deliveries', DELIVERY_WAITING);
  }

  /**
   * Takes pending deliveries for the attempts named, skipping any that another worker took (its
   * attempt counted already) or that another statement holds at this moment (locked: skipped
   * rather than waited for, so batches never deadlock; such a row is still due when the relay's
   * hand-off lease ends, and is handed on again). Counts each and pushes its due time past the
   * attempt's longest duration, so a crash mid-attempt leaves it due again. One round trip for
   * the batch: the claims and what the attempts need together. Rows come in no particular order;
   * a row's `attempts` is the attempt it was claimed for.
   */
  claimAttempts(db: Db, work: WorkItem[], leaseMs: number, instanceId: string): Promise<ClaimedDeliveryRow[]> {
    if (work.length === 0) return Promise.resolve([]);
    return query(
      db,
      sql`UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = ${msFromNow(leaseMs)}, claimed_by = ${instanceId}, updated_at = now()
            FROM webhooks w, events e
           WHERE d.id IN (SELECT x.id FROM webhook_deliveries x
                            JOIN unnest(${work.map((item) => item.id)}::uuid[], ${work.map((item) => item.attempt - 1)}::int[]) AS c (id, attempts)
                              ON x.id = c.id AND x.attempts = c.attempts
                           WHERE x.status = 'pending'
                           FOR UPDATE OF x SKIP LOCKED)
             AND w.id = d.webhook_id AND e.id = d.event_id
          RETURNING d.id, d.attempts, w.id AS webhook_id, w.url AS webhook_url, w.secret AS webhook_secret, w.active AS webhook_active,
                    e.id AS event_id, e.type AS event_type, e.data AS event_data, e.created_at AS event_created_at`,
    );
  }

  /**
   * Deletes up to `limit` finished (succeeded or failed) deliveries whose last change is before
   * `before`, on webhook_deliveries_finished_idx; rows another replica holds are skipped, and a
   * delivery made pending again meanwhile no longer matches. Answers how many.
   */
  pruneFinished(db: Db, before: Date, limit: number): Promise<number> {
    return execute(
      db,
      sql`DELETE FROM webhook_deliveries
           WHERE id IN (SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`,
    );
  }

  /** Of these events, those some delivery still refers to (pending, or finished too recently to be pruned), on webhook_deliveries_event_idx. */
  async eventsWithDeliveries(db: Db, eventIds: string[]): Promise<string[]> {
    if (eventIds.length === 0) return [];
    const rows = await query<{ event_id: string }>(
      db,
      sql`SELECT DISTINCT event_id FROM webhook_deliveries WHERE event_id = ANY(${eventIds}::uuid[])`,
    );
    return rows.map((row) => row.event_id);
  }

  /** How attempts went, one statement for the batch; each row's claim is released. */
  async recordAttempts(db: Db, attempts: { id: string; record: AttemptRecord }[]): Promise<void> {
    if (attempts.length === 0) return;
    const column = <T>(read: (record: AttemptRecord) => T) => attempts.map(({ record }) => read(record));
    await execute(
      db,
      sql`UPDATE webhook_deliveries d SET status = r.status, last_status_code = r.last_status_code, last_response = r.last_response,
                 last_error = r.last_error, next_attempt_at = r.next_attempt_at, claimed_by = NULL, updated_at = now()
            FROM unnest(${attempts.map(({ id }) => id)}::uuid[], ${column((r) => r.status)}::text[], ${column((r) => r.last_status_code)}::int[],
                        ${column((r) => r.last_response)}::text[], ${column((r) => r.last_error)}::text[],
                        ${column((r) => r.next_attempt_at?.toISOString() ?? null)}::timestamptz[])
                 AS r (id, status, last_status_code, last_response, last_error, next_attempt_at)
           WHERE d.id = r.id`,
    );
  }
}

import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { EventType } from '../events/event-types';
import type { WorkKind } from '../recorded-work/work-kind';
import type { DeliveryRow, DeliveryStatus } from './webhook.entity';

/** A delivery with its event's type, as DeliveryResponse.of reads it. */
const SELECT_DELIVERY = sql.raw(`SELECT d.id, d.event_id, e.type AS event_type, d.status, d.attempts, d.last_status_code, d.last_response,
       d.last_error, d.next_attempt_at, d.created_at, d.updated_at
  FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`);
/** Deliveries not finished, as recorded work (alias `w`), and what an attempt needs: the registration and the event. */
export const DELIVERY_WORK = {
  table: 'webhook_deliveries',
  waiting: sql`w.status = 'pending'`,
  needs: {
    from: sql`webhooks wh, events e`,
    where: sql`wh.id = w.webhook_id AND e.id = w.event_id`,
    columns: sql`wh.id AS webhook_id, wh.url AS webhook_url, wh.secret AS webhook_secret, wh.active AS webhook_active,
                 e.id AS event_id, e.type AS event_type, e.data AS event_data, e.created_at AS event_created_at`,
  },
} satisfies Pick<WorkKind, 'table' | 'waiting' | 'needs'>;
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

import { BadRequestException, Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor, Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, sql, Sql } from '../database/sql';
import type {
  CampaignAudience,
  CampaignRow,
  CampaignTotals,
  PendingRecipient,
  RecipientOutcome,
  RecipientRow,
  RecipientStatus,
} from './campaign.entity';

/** How long after a campaign's message a customer's message counts as its reply: a week. */
export const REPLIES_WITHIN_MS = 7 * 24 * 3600 * 1000;

const COLUMNS = sql.raw(
  'id, name, inbox_id, template, audience, scheduled_at, rate_per_second, status, status_reason, created_by, started_at, finished_at, attempts, next_attempt_at, failures, last_error, created_at, updated_at',
);

/** Positions are PostgreSQL integers. */
const MAX_POSITION = 2_147_483_647;

const NEWEST_FIRST = new Keyset<CampaignRow>({ time: 'created_at', id: 'id' }, 'DESC', (row) => [row.created_at, row.id]);

/** The campaigns' dispatch as recorded work: a campaign waits while it is scheduled or running. */
export const DISPATCH_WORK = {
  table: 'campaigns',
  waiting: sql`w.status IN ('scheduled', 'running')`,
  needs: { columns: sql`w.failures` },
} as const;

/** A recipient as a public status filter names it: `queued` is every one not yet sent (pending included), `replied` those who wrote back. */
export type RecipientFilter = 'queued' | 'sent' | 'delivered' | 'read' | 'replied' | 'failed' | 'skipped';

/** Where a campaign's pace stands: its messages still being sent, those whose send ended within the last second, and whether anyone is left. */
export interface PaceWindow {
  in_flight: number;
  recent: number;
  /** When the oldest send that ended within the last second ended; null when none did. */
  oldest_recent: Date | null;
  pending_left: boolean;
}

/**
 * The contacts an audience names: those listed, and those that match every filter given (any of
 * the tags; a conversation with any of the labels; each attribute equal). No filter and no list:
 * nobody. Reads the contacts' tables (and conversations' labels) once, here.
 */
function audienceCondition(audience: CampaignAudience): Sql {
  const filters: Sql[] = [];
  if (audience.tags?.length) filters.push(sql`c.tags && ${audience.tags}::text[]`);
  if (audience.labels?.length)
    filters.push(sql`EXISTS (SELECT 1 FROM conversations cv JOIN conversation_labels cl ON cl.conversation_id = cv.id
                                JOIN labels l ON l.id = cl.label_id
                               WHERE cv.contact_id = c.id AND l.name = ANY(${audience.labels}::text[]))`);
  if (audience.attributes && Object.keys(audience.attributes).length > 0)
    filters.push(sql`c.attributes @> ${JSON.stringify(audience.attributes)}::jsonb`);
  const either: Sql[] = [];
  if (audience.contact_ids?.length) either.push(sql`c.id = ANY(${audience.contact_ids}::uuid[])`);
  if (filters.length > 0) either.push(sql`(${sql.join(filters, ' AND ')})`);
  return either.length === 0 ? sql`false` : sql`(${sql.join(either, ' OR ')})`;
}

/** The condition of a public status filter on the recipients `r`. */
function filterCondition(status: RecipientFilter): Sql {
  if (status === 'replied') return sql`r.replied_at IS NOT NULL`;
  const stored: RecipientStatus[] = status === 'queued' ? ['pending', 'queued'] : [status];
  return sql`r.status = ANY(${stored}::text[]) AND r.replied_at IS NULL`;
}

/** The SQL of `campaigns`, `campaign_recipients` and `campaign_counters`. */
@Injectable()
export class CampaignRepository {
  async insert(db: Db, row: CampaignRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO campaigns (${COLUMNS})
          VALUES (${row.id}, ${row.name}, ${row.inbox_id}, ${JSON.stringify(row.template)}, ${JSON.stringify(row.audience)}, ${row.scheduled_at},
                  ${row.rate_per_second}, ${row.status}, ${row.status_reason}, ${row.created_by}, ${row.started_at}, ${row.finished_at}, ${row.attempts},
                  ${row.next_attempt_at}, ${row.failures}, ${row.last_error}, ${row.created_at}, ${row.updated_at})`,
    );
  }

  /**
   * The campaign; `lock` holds it until the transaction ends (a step, a pause and an edit take
   * turns on it). FOR NO KEY UPDATE, not FOR UPDATE: the totals' ledger and the recipients check
   * their foreign key with KEY SHARE on this row, and a send recording its status must never wait
   * for a step.
   */
  find(db: Db, id: string, lock = false): Promise<CampaignRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM campaigns WHERE id = ${id} ${lock ? sql`FOR NO KEY UPDATE` : sql``}`);
  }

  async list(db: Db, page: PageQuery): Promise<Page<CampaignRow>> {
    const after = NEWEST_FIRST.after(page.cursor);
    const rows = await query<CampaignRow>(
      db,
      sql`SELECT ${COLUMNS} FROM campaigns ${after ? sql`WHERE ${after}` : sql``} ${NEWEST_FIRST.orderAndLimit(page)}`,
    );
    return NEWEST_FIRST.page(rows, page);
  }

  /** Writes every column an edit, a change of status or a step may change; `release`: a step ends its claim. */
  async update(db: Db, row: CampaignRow, release = false): Promise<void> {
    await execute(
      db,
      sql`UPDATE campaigns SET name = ${row.name}, inbox_id = ${row.inbox_id}, template = ${JSON.stringify(row.template)},
                 audience = ${JSON.stringify(row.audience)}, scheduled_at = ${row.scheduled_at}, rate_per_second = ${row.rate_per_second},
                 status = ${row.status}, status_reason = ${row.status_reason}, started_at = ${row.started_at}, finished_at = ${row.finished_at},
                 next_attempt_at = ${row.next_attempt_at}, failures = ${row.failures}, last_error = ${row.last_error},
                 ${release ? sql`claimed_by = NULL,` : sql``} updated_at = ${row.updated_at}
           WHERE id = ${row.id}`,
    );
  }

  /** A failed step: the next one due at `at`, the failures in a row counted. */
  async recordStepFailed(db: Db, id: string, attempts: number, reason: string, at: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE campaigns SET failures = failures + 1, last_error = ${reason}, next_attempt_at = ${at}, claimed_by = NULL, updated_at = now()
           WHERE id = ${id} AND attempts = ${attempts} AND status IN ('scheduled', 'running')`,
    );
  }

  async remove(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM campaigns WHERE id = ${id}`);
  }

  /** The totals of each campaign, summed from its ledger (a few rows once folded). */
  async totals(db: Db, ids: string[]): Promise<Map<string, CampaignTotals>> {
    if (ids.length === 0) return new Map();
    const rows = await query<CampaignTotals & { campaign_id: string }>(
      db,
      sql`SELECT campaign_id, sum(recipients)::int AS recipients, sum(queued)::int AS queued, sum(sent)::int AS sent,
                 sum(delivered)::int AS delivered, sum(read)::int AS read, sum(replied)::int AS replied, sum(failed)::int AS failed,
                 sum(skipped)::int AS skipped
            FROM campaign_counters WHERE campaign_id = ANY(${ids}::uuid[]) GROUP BY campaign_id`,
    );
    return new Map(rows.map(({ campaign_id, ...totals }) => [campaign_id, totals]));
  }

  /**
   * Folds the ledger of the campaigns whose totals changed since the last fold (more than one row)
   * into one row each, and answers them. Safe on several replicas at once: a row is deleted once.
   */
  async foldCounters(db: Db): Promise<string[]> {
    const rows = await query<{ campaign_id: string }>(
      db,
      sql`WITH taken AS (
            DELETE FROM campaign_counters
             WHERE campaign_id IN (SELECT campaign_id FROM campaign_counters GROUP BY campaign_id HAVING count(*) > 1)
            RETURNING *),
          folded AS (
            INSERT INTO campaign_counters (campaign_id, recipients, queued, sent, delivered, read, replied, failed, skipped)
            SELECT campaign_id, sum(recipients), sum(queued), sum(sent), sum(delivered), sum(read), sum(replied), sum(failed), sum(skipped)
              FROM taken GROUP BY campaign_id)
          SELECT DISTINCT campaign_id FROM taken`,
    );
    return rows.map((row) => row.campaign_id);
  }

  /** How many contacts the audience names now, and how many of them a campaign would skip for having opted out or being blocked. */
  async countAudience(db: Db, audience: CampaignAudience): Promise<{ contacts: number; opted_out: number; blocked: number }> {
    return (await queryOne<{ contacts: number; opted_out: number; blocked: number }>(
      db,
      sql`SELECT count(*)::int AS contacts, (count(*) FILTER (WHERE c.opted_out_at IS NOT NULL))::int AS opted_out,
                 (count(*) FILTER (WHERE c.blocked_at IS NOT NULL))::int AS blocked
            FROM contacts c WHERE ${audienceCondition(audience)}`,
    ))!;
  }

  /** The first contacts of the audience, in the order a campaign sends: a preview's samples. */
  sampleAudience(db: Db, audience: CampaignAudience, limit: number): Promise<PendingRecipient[]> {
    return query<PendingRecipient>(
      db,
      sql`SELECT 0 AS position, c.id AS contact_id, c.name, c.phone, c.wa_user_id, c.attributes, c.opted_out_at, c.blocked_at
            FROM contacts c WHERE ${audienceCondition(audience)} ORDER BY c.created_at, c.id LIMIT ${limit}`,
    );
  }

  /**
   * The recipient list, built by one statement when the campaign starts: every contact of the
   * audience, pending, in the order of the contact book. Answers how many.
   */
  resolveAudience(db: Db, campaignId: string, audience: CampaignAudience): Promise<number> {
    return execute(
      db,
      sql`INSERT INTO campaign_recipients (campaign_id, position, contact_id, status, updated_at)
          SELECT ${campaignId}, row_number() OVER (ORDER BY c.created_at, c.id), c.id, 'pending', now()
            FROM contacts c WHERE ${audienceCondition(audience)}`,
    );
  }

  /** Where the campaign's pace stands (see PaceWindow), on the recipients' status and completed indexes. */
  async window(db: Db, campaignId: string): Promise<PaceWindow> {
    return (await queryOne<PaceWindow>(
      db,
      sql`SELECT (SELECT count(*) FROM campaign_recipients WHERE campaign_id = ${campaignId} AND status = 'queued')::int AS in_flight,
                 recent.count::int AS recent, recent.oldest AS oldest_recent,
                 EXISTS (SELECT 1 FROM campaign_recipients WHERE campaign_id = ${campaignId} AND status = 'pending') AS pending_left
            FROM (SELECT count(*), min(completed_at) AS oldest FROM campaign_recipients
                   WHERE campaign_id = ${campaignId} AND completed_at > now() - interval '1 second') recent`,
    ))!;
  }

  /**
   * The next recipients to send to, in order, with their contacts as they are now, held (FOR
   * SHARE) until the step commits: a STOP being stored waits for the step, or the step for it.
   */
  pending(db: Db, campaignId: string, limit: number): Promise<PendingRecipient[]> {
    return query<PendingRecipient>(
      db,
      sql`SELECT r.position, c.id AS contact_id, c.name, c.phone, c.wa_user_id, c.attributes, c.opted_out_at, c.blocked_at
            FROM (SELECT position, contact_id FROM campaign_recipients
                   WHERE campaign_id = ${campaignId} AND status = 'pending' ORDER BY position LIMIT ${limit}) r
            LEFT JOIN LATERAL (SELECT id, name, phone, wa_user_id, attributes, opted_out_at, blocked_at
                                 FROM contacts WHERE id = r.contact_id FOR SHARE) c ON true
           ORDER BY r.position`,
    );
  }

  /** What a step decided for each recipient, in one statement: its message queued, or skipped with the reason. */
  async recordOutcomes(db: Db, campaignId: string, outcomes: RecipientOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const rows = outcomes.map((outcome) =>
      'skipped' in outcome
        ? { position: outcome.position, status: 'skipped', reason: outcome.skipped, message_id: null }
        : { position: outcome.position, status: 'queued', reason: null, message_id: outcome.message_id },
    );
    await execute(
      db,
      sql`UPDATE campaign_recipients r SET status = v.status, reason = v.reason, message_id = v.message_id, updated_at = now()
            FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(position integer, status text, reason text, message_id uuid)
           WHERE r.campaign_id = ${campaignId} AND r.position = v.position AND r.status = 'pending'`,
    );
  }

  /** A cancelled campaign's recipients not yet sent to are skipped, with the reason. */
  skipPending(db: Db, campaignId: string, reason: string): Promise<number> {
    return execute(
      db,
      sql`UPDATE campaign_recipients SET status = 'skipped', reason = ${reason}, updated_at = now()
           WHERE campaign_id = ${campaignId} AND status = 'pending'`,
    );
  }

  /**
   * The customer wrote in the conversation: the campaign messages sent there in the week before
   * (and not answered yet) count as replied. One read of the thread's index finds whether any was
   * sent, before the update, whose planning and totals' trigger (a statement trigger, which fires
   * even on no row) cost 0.7 ms on every message of the ingest.
   */
  async markReplied(db: Db, conversationId: string, at: Date): Promise<void> {
    const sentInTheWeek = sql`m.conversation_id = ${conversationId} AND m.campaign_id IS NOT NULL AND m.direction = 'outbound'
             AND m.created_at > ${at}::timestamptz - make_interval(secs => ${REPLIES_WITHIN_MS / 1000}) AND m.created_at < ${at}`;
    if ((await query(db, sql`SELECT 1 FROM messages m WHERE ${sentInTheWeek} LIMIT 1`)).length === 0) return;
    await execute(
      db,
      sql`UPDATE campaign_recipients r SET replied_at = ${at}, updated_at = now()
            FROM messages m
           WHERE ${sentInTheWeek} AND r.message_id = m.id AND r.replied_at IS NULL AND r.status IN ('sent', 'delivered', 'read')`,
    );
  }

  /** One page of a campaign's recipients in send order, with their contacts; `status` keeps to one public status. */
  async recipients(db: Db, campaignId: string, filter: RecipientFilter | undefined, page: PageQuery): Promise<Page<RecipientRow>> {
    const after = page.cursor ? Number(decodeCursor(page.cursor, ['string'])[0]) : 0;
    if (!Number.isInteger(after) || after < 0 || after > MAX_POSITION)
      throw new BadRequestException('cursor is not a cursor returned by this list');
    const rows = await this.recipientsAfter(db, campaignId, filter, after, page.limit + 1);
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    return { data, next_cursor: rows.length > page.limit && last ? encodeCursor([String(last.position)]) : null };
  }

  /** Up to `limit` recipients after `afterPosition`, in send order (the CSV walks the list with it). */
  recipientsAfter(
    db: Db,
    campaignId: string,
    filter: RecipientFilter | undefined,
    afterPosition: number,
    limit: number,
  ): Promise<RecipientRow[]> {
    return query<RecipientRow>(
      db,
      sql`SELECT r.campaign_id, r.position, r.contact_id, r.status, r.reason, r.error_code, r.message_id, r.replied_at, r.completed_at,
                      r.updated_at, c.name AS contact_name, c.phone AS contact_phone, c.wa_user_id AS contact_wa_user_id
                 FROM campaign_recipients r LEFT JOIN contacts c ON c.id = r.contact_id
                WHERE r.campaign_id = ${campaignId} AND r.position > ${afterPosition} ${filter ? sql`AND ${filterCondition(filter)}` : sql``}
                ORDER BY r.position LIMIT ${limit}`,
    );
  }
}

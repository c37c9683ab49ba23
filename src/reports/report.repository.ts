import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, query, type Sql, sql } from '../database/sql';

/** Outbound messages of one inbox with one pricing, counted. */
export interface PricingRow {
  inbox_id: string;
  category: string;
  type: string | null;
  pricing_model: string | null;
  messages: number;
}

export interface PricingFilter {
  from: Date;
  to: Date;
  inboxId?: string;
  /** The inboxes the reader sees; null: every one. */
  visibleInboxes: readonly string[] | null;
}

/** How a summary groups: by the day or week (in the report's time zone) of each fact, by who or where it belongs, or not at all. */
export type ReportGrouping = 'day' | 'week' | 'agent' | 'team' | 'inbox' | 'total';

export interface SummaryFilter {
  from: Date;
  to: Date;
  /** The IANA zone days and weeks are counted in. */
  timeZone: string;
  /** Durations counted within each inbox's business hours instead of the calendar's. */
  businessHours: boolean;
  groupBy: ReportGrouping;
  inboxId?: string;
  teamId?: string;
  userId?: string;
  /** The inboxes the reader sees; null: every one. */
  visibleInboxes: readonly string[] | null;
  /** The teams whose figures the reader may see (an agent: their own); null: every one. */
  visibleTeams?: readonly string[] | null;
}

/** Conversations opened, resolved and open per group: from the episodes, or from the holds when agents or teams are concerned. */
export interface OpenedRow {
  key: string | null;
  opened: number;
  /** Started within the period (for the day and week groupings: started in that bucket). */
  starts: number;
  /** Ended within the period (resolved, or handed on, for holds): for the day and week groupings, ended in that bucket. */
  stops: number;
  /** Open at the period's end (the other groupings). */
  open_at_end: number;
}

export interface ResolvedRow {
  key: string | null;
  resolved: number;
  resolution_median: number | null;
  resolution_p90: number | null;
  waiting_median: number | null;
  waiting_p90: number | null;
  csat_average: number | null;
  csat_count: number;
  /** Ratings 1 to 5, counted. */
  csat_ratings: number[];
}

export interface FirstResponseRow {
  key: string | null;
  first_response_median: number | null;
  first_response_p90: number | null;
}

export interface MessageCountRow {
  key: string | null;
  messages_in: number;
  messages_out: number;
  campaign_sends: number;
}

/**
 * One conversation as the CSV shows it, over its episodes opened in the period (those of the agent,
 * team or inbox asked for): the first opening, the first response of any, and the last episode's
 * holder, close and rating.
 */
export interface ConversationReportRow {
  /** The first episode's id: the page's cursor. */
  id: string;
  conversation_id: string;
  inbox_id: string;
  contact_id: string;
  assigned_to: string | null;
  team_id: string | null;
  opened_at: Date;
  first_response_at: Date | null;
  first_responder_id: string | null;
  /** The last episode's close; null while it is open. */
  resolved_at: Date | null;
  first_response_seconds: number | null;
  /** The episodes' times open until each close, summed; null while the last is open. */
  resolution_seconds: number | null;
  waiting_seconds: number;
  csat_rating: number | null;
  openings: number;
}

const OLDEST_FIRST = new Keyset<ConversationReportRow>({ time: 'f.opened_at', id: 'f.id' }, 'ASC', (row) => [row.opened_at, row.id]);

/** The SQL of the reports: aggregates over the tables of other modules, read only. */
@Injectable()
export class ReportRepository {
  /**
   * Outbound messages created in [from, to) that the channel priced, counted per inbox, category,
   * type and model. A range of messages_created_idx, or of messages_inbox_created_idx per inbox.
   */
  pricing(db: Db, filter: PricingFilter): Promise<PricingRow[]> {
    const where: Sql[] = [
      sql`direction = 'outbound'`,
      sql`pricing_category IS NOT NULL`,
      sql`created_at >= ${filter.from}`,
      sql`created_at < ${filter.to}`,
    ];
    if (filter.inboxId !== undefined) where.push(sql`inbox_id = ${filter.inboxId}`);
    if (filter.visibleInboxes !== null) where.push(sql`inbox_id = ANY(${[...filter.visibleInboxes]}::uuid[])`);
    return query<PricingRow>(
      db,
      sql`SELECT inbox_id, pricing_category AS category, pricing_type AS type, pricing_model, count(*)::int AS messages
            FROM messages ${sql.where(where)}
           GROUP BY inbox_id, pricing_category, pricing_type, pricing_model
           ORDER BY inbox_id, pricing_category, pricing_type NULLS LAST, pricing_model NULLS LAST`,
    );
  }
  /** The local day or week (its first moment) of a moment, in the report's zone. */
  private bucketOf(filter: SummaryFilter, column: Sql): Sql {
    const unit = filter.groupBy === 'week' ? 'week' : 'day';
    return sql`date_trunc(${unit}, ${column} AT TIME ZONE ${filter.timeZone})`;
  }

  /**
   * A statement grouped by `bucket`, answered with each group's key as text: a day or week as
   * `YYYY-MM-DD`, formatted once per group rather than once per row (half the time of a year's
   * million messages by day).
   */
  private keyed(filter: SummaryFilter, grouped: Sql): Sql {
    const key = this.timeGrouped(filter) ? sql`to_char(g.bucket, 'YYYY-MM-DD')` : sql`g.bucket`;
    return sql`SELECT ${key} AS key, g.* FROM (${grouped}) g`;
  }

  private timeGrouped(filter: SummaryFilter): boolean {
    return filter.groupBy === 'day' || filter.groupBy === 'week';
  }

  /** The key of a fact: its time's bucket, or the column of who or where it belongs ('total' for one group). */
  private keyOf(filter: SummaryFilter, time: Sql, columns: { agent: Sql; team: Sql; inbox: Sql }): Sql {
    switch (filter.groupBy) {
      case 'day':
      case 'week':
        return this.bucketOf(filter, time);
      case 'agent':
        return sql`${columns.agent}::text`;
      case 'team':
        return sql`${columns.team}::text`;
      case 'inbox':
        return sql`${columns.inbox}::text`;
      case 'total':
        return sql`'total'`;
    }
  }

  /** The conditions every family of facts shares: the inboxes seen and asked for, the agent and the team asked for. */
  private scope(filter: SummaryFilter, columns: { agent: Sql; team: Sql; inbox: Sql }): Sql[] {
    const where: Sql[] = [];
    if (filter.visibleInboxes !== null) where.push(sql`${columns.inbox} = ANY(${[...filter.visibleInboxes]}::uuid[])`);
    if (filter.inboxId !== undefined) where.push(sql`${columns.inbox} = ${filter.inboxId}`);
    if (filter.userId !== undefined) where.push(sql`${columns.agent} = ${filter.userId}`);
    if (filter.teamId !== undefined) where.push(sql`${columns.team} = ${filter.teamId}`);
    if (filter.groupBy === 'team' && filter.visibleTeams) where.push(sql`${columns.team} = ANY(${[...filter.visibleTeams]}::uuid[])`);
    return where;
  }

  /**
   * Conversations opened and open. By day, week, inbox or in total they are the episodes (opened,
   * resolved); by agent or team, or for one agent or team, the holds (a conversation comes to an
   * agent when it is handed to them, and leaves them when it is handed on or resolved).
   */
  opened(db: Db, filter: SummaryFilter): Promise<OpenedRow[]> {
    const byAgent = filter.groupBy === 'agent' || (filter.groupBy !== 'team' && filter.userId !== undefined);
    const byHolds = byAgent || filter.groupBy === 'team' || filter.teamId !== undefined;
    // A hold opens for the agent or the team it brought the conversation to, not for the other one's change.
    const handed = sql.raw(byAgent ? 'h.new_agent' : 'h.new_team');
    const units = byHolds
      ? sql`SELECT h.episode_id AS episode, h.started_at AS start, h.ended_at AS stop, h.user_id AS agent, h.team_id AS team, h.inbox_id AS inbox,
                   ${handed} AS handed
              FROM conversation_holds h`
      : sql`SELECT e.id AS episode, e.opened_at AS start, e.resolved_at AS stop, e.assigned_to AS agent, e.team_id AS team, e.inbox_id AS inbox,
                   true AS handed
              FROM conversation_episodes e`;
    const columns = { agent: sql`u.agent`, team: sql`u.team`, inbox: sql`u.inbox` };
    const scope = this.scope(filter, columns);
    const { from, to } = filter;
    if (this.timeGrouped(filter)) {
      const started = [...scope, sql`u.start >= ${from}`, sql`u.start < ${to}`];
      const ended = [...scope, sql`u.stop >= ${from}`, sql`u.stop < ${to}`];
      const before = [...scope, sql`u.start < ${from}`, sql`(u.stop IS NULL OR u.stop >= ${from})`];
      // The open at each bucket's end are those open at `from` (the row without a key), plus those started, less those ended, since.
      return query<OpenedRow>(
        db,
        this.keyed(
          filter,
          sql`SELECT ${this.bucketOf(filter, sql`u.start`)} AS bucket, count(DISTINCT u.episode) FILTER (WHERE u.handed)::int AS opened,
                     count(*)::int AS starts,
                     0 AS stops, 0 AS open_at_end
                FROM (${units}) u ${sql.where(started)} GROUP BY 1
              UNION ALL
              SELECT ${this.bucketOf(filter, sql`u.stop`)}, 0, 0, count(*)::int, 0 FROM (${units}) u ${sql.where(ended)} GROUP BY 1
              UNION ALL
              SELECT NULL, 0, 0, 0, count(*)::int FROM (${units}) u ${sql.where(before)}`,
        ),
      );
    }
    const key = this.keyOf(filter, sql`u.start`, columns);
    const within = [...scope, sql`u.start < ${to}`, sql`(u.stop IS NULL OR u.stop >= ${from})`];
    return query<OpenedRow>(
      db,
      this.keyed(
        filter,
        sql`SELECT ${key} AS bucket,
                 count(DISTINCT u.episode) FILTER (WHERE u.start >= ${from} AND u.handed)::int AS opened,
                 count(*) FILTER (WHERE u.start >= ${from})::int AS starts,
                 count(*) FILTER (WHERE u.stop < ${to})::int AS stops,
                 count(*) FILTER (WHERE u.stop IS NULL OR u.stop >= ${to})::int AS open_at_end
            FROM (${units}) u ${sql.where(within)}
           GROUP BY 1`,
      ),
    );
  }

  /** Episodes resolved in the period: how many, how long they took and waited, and their customers' ratings; by the agent and team who held them last. */
  resolved(db: Db, filter: SummaryFilter): Promise<ResolvedRow[]> {
    const columns = { agent: sql`e.assigned_to`, team: sql`e.team_id`, inbox: sql`e.inbox_id` };
    const seconds = sql.raw(filter.businessHours ? 'e.resolution_business_seconds' : 'e.resolution_seconds');
    const where = [...this.scope(filter, columns), sql`e.resolved_at >= ${filter.from}`, sql`e.resolved_at < ${filter.to}`];
    return query<ResolvedRow>(
      db,
      this.keyed(
        filter,
        sql`SELECT ${this.keyOf(filter, sql`e.resolved_at`, columns)} AS bucket, count(*)::int AS resolved,
                 round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ${seconds}))::float8 AS resolution_median,
                 round(percentile_cont(0.9) WITHIN GROUP (ORDER BY ${seconds}))::float8 AS resolution_p90,
                 round(percentile_cont(0.5) WITHIN GROUP (ORDER BY e.waiting_seconds))::float8 AS waiting_median,
                 round(percentile_cont(0.9) WITHIN GROUP (ORDER BY e.waiting_seconds))::float8 AS waiting_p90,
                 round(avg(e.csat_rating), 2)::float8 AS csat_average, count(e.csat_rating)::int AS csat_count,
                 ARRAY[count(*) FILTER (WHERE e.csat_rating = 1), count(*) FILTER (WHERE e.csat_rating = 2),
                       count(*) FILTER (WHERE e.csat_rating = 3), count(*) FILTER (WHERE e.csat_rating = 4),
                       count(*) FILTER (WHERE e.csat_rating = 5)]::int[] AS csat_ratings
            FROM conversation_episodes e ${sql.where(where)}
           GROUP BY 1`,
      ),
    );
  }

  /** First responses given in the period: how long the customer waited for them; by the agent who gave them and their team then. */
  firstResponses(db: Db, filter: SummaryFilter): Promise<FirstResponseRow[]> {
    const columns = { agent: sql`e.first_responder_id`, team: sql`e.first_response_team_id`, inbox: sql`e.inbox_id` };
    const seconds = sql.raw(filter.businessHours ? 'e.first_response_business_seconds' : 'e.first_response_seconds');
    const where = [...this.scope(filter, columns), sql`e.first_response_at >= ${filter.from}`, sql`e.first_response_at < ${filter.to}`];
    return query<FirstResponseRow>(
      db,
      this.keyed(
        filter,
        sql`SELECT ${this.keyOf(filter, sql`e.first_response_at`, columns)} AS bucket,
                 round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ${seconds}))::float8 AS first_response_median,
                 round(percentile_cont(0.9) WITHIN GROUP (ORDER BY ${seconds}))::float8 AS first_response_p90
            FROM conversation_episodes e ${sql.where(where)}
           GROUP BY 1`,
      ),
    );
  }

  /**
   * Messages of the period counted: the customers' (for the agent and team who held the thread then),
   * the outbound ones (for the agent who sent them; automatic ones for nobody), and campaign sends.
   */
  messageCounts(db: Db, filter: SummaryFilter): Promise<MessageCountRow[]> {
    const columns = {
      agent: sql`(CASE WHEN m.direction = 'inbound' THEN m.assignee_id ELSE m.sent_by END)`,
      team: sql`m.team_id`,
      inbox: sql`m.inbox_id`,
    };
    const where = [
      ...this.scope(filter, columns),
      sql`m.direction <> 'internal'`,
      sql`m.created_at >= ${filter.from}`,
      sql`m.created_at < ${filter.to}`,
    ];
    return query<MessageCountRow>(
      db,
      this.keyed(
        filter,
        sql`SELECT ${this.keyOf(filter, sql`m.created_at`, columns)} AS bucket,
                 count(*) FILTER (WHERE m.direction = 'inbound')::int AS messages_in,
                 count(*) FILTER (WHERE m.direction = 'outbound')::int AS messages_out,
                 count(*) FILTER (WHERE m.campaign_id IS NOT NULL AND m.status NOT IN ('queued', 'failed'))::int AS campaign_sends
            FROM messages m ${sql.where(where)}
           GROUP BY 1`,
      ),
    );
  }

  /** The local days or weeks from `from` to `to` (exclusive), each once, in order. */
  async buckets(db: Db, filter: SummaryFilter): Promise<string[]> {
    const [unit, step] = filter.groupBy === 'week' ? ['week', '1 week'] : ['day', '1 day'];
    const rows = await query<{ key: string }>(
      db,
      sql`SELECT to_char(b, 'YYYY-MM-DD') AS key
            FROM generate_series(date_trunc(${unit}, ${filter.from}::timestamptz AT TIME ZONE ${filter.timeZone}),
                                 (${filter.to}::timestamptz - interval '1 millisecond') AT TIME ZONE ${filter.timeZone},
                                 ${step}::interval) b`,
    );
    return rows.map((row) => row.key);
  }

  /** The teams a user belongs to. */
  async teamsOf(db: Db, userId: string): Promise<string[]> {
    return (await query<{ team_id: string }>(db, sql`SELECT team_id FROM team_members WHERE user_id = ${userId}`)).map(
      (row) => row.team_id,
    );
  }

  /** The names of users, teams or inboxes by id (a removed one is left out). */
  names(db: Db, table: 'users' | 'teams' | 'inboxes', ids: string[]): Promise<{ id: string; name: string }[]> {
    return query(db, sql`SELECT id, name FROM ${sql.raw(table)} WHERE id = ANY(${ids}::uuid[])`);
  }

  /**
   * A page of the conversations with an episode opened in [from, to), oldest first by their first
   * such opening (the CSV reads them page after page), each summed over those episodes; durations
   * in business-hours seconds when asked. The page is chosen on the episodes' index of openings,
   * then each conversation's episodes are read on their index by conversation.
   */
  async conversations(db: Db, filter: Omit<SummaryFilter, 'groupBy' | 'timeZone'>, page: PageQuery): Promise<Page<ConversationReportRow>> {
    const counted = (alias: string): Sql[] => {
      const episode = sql.raw(alias);
      return [
        ...this.scope(
          { ...filter, groupBy: 'total', timeZone: 'UTC' },
          { agent: sql`${episode}.assigned_to`, team: sql`${episode}.team_id`, inbox: sql`${episode}.inbox_id` },
        ),
        sql`${episode}.opened_at >= ${filter.from}`,
        sql`${episode}.opened_at < ${filter.to}`,
      ];
    };
    const first = [
      ...counted('f'),
      sql`NOT EXISTS (SELECT 1 FROM conversation_episodes p
                       ${sql.where([...counted('p'), sql`p.conversation_id = f.conversation_id`, sql`(p.opened_at, p.id) < (f.opened_at, f.id)`])})`,
    ];
    const after = OLDEST_FIRST.after(page.cursor);
    if (after) first.push(after);
    const business = filter.businessHours;
    const firstResponseSeconds = sql.raw(business ? 'e.first_response_business_seconds' : 'e.first_response_seconds');
    const resolutionSeconds = sql.raw(business ? 'e.resolution_business_seconds' : 'e.resolution_seconds');
    const ofTheConversation = [...counted('e'), sql`e.conversation_id = f.conversation_id`];
    const rows = await query<ConversationReportRow>(
      db,
      sql`SELECT f.id, f.conversation_id, last.inbox_id, c.contact_id, last.assigned_to, last.team_id, f.opened_at,
                 answer.first_response_at, answer.first_responder_id, answer.first_response_seconds, last.resolved_at,
                 CASE WHEN last.resolved_at IS NOT NULL THEN summed.resolution_seconds END AS resolution_seconds,
                 summed.waiting_seconds, rated.csat_rating, summed.openings
            FROM (SELECT f.* FROM conversation_episodes f ${sql.where(first)} ${OLDEST_FIRST.orderAndLimit(page)}) f
            JOIN conversations c ON c.id = f.conversation_id
            CROSS JOIN LATERAL (SELECT count(*)::int AS openings, sum(${resolutionSeconds}) AS resolution_seconds,
                                       sum(e.waiting_seconds) AS waiting_seconds
                                  FROM conversation_episodes e ${sql.where(ofTheConversation)}) summed
            CROSS JOIN LATERAL (SELECT e.inbox_id, e.assigned_to, e.team_id, e.resolved_at
                                  FROM conversation_episodes e ${sql.where(ofTheConversation)}
                                 ORDER BY e.opened_at DESC, e.id DESC LIMIT 1) last
            LEFT JOIN LATERAL (SELECT e.first_response_at, e.first_responder_id, ${firstResponseSeconds} AS first_response_seconds
                                 FROM conversation_episodes e ${sql.where([...ofTheConversation, sql`e.first_response_at IS NOT NULL`])}
                                ORDER BY e.first_response_at LIMIT 1) answer ON true
            LEFT JOIN LATERAL (SELECT e.csat_rating
                                 FROM conversation_episodes e ${sql.where([...ofTheConversation, sql`e.csat_rating IS NOT NULL`])}
                                ORDER BY e.opened_at DESC, e.id DESC LIMIT 1) rated ON true
           ${OLDEST_FIRST.orderAndLimit(page)}`,
    );
    return OLDEST_FIRST.page(rows, page);
  }
}

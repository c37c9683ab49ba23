import { BadRequestException, ForbiddenException, Injectable, Logger } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import { pipeline, Readable } from 'node:stream';
import { parsePublicId, toPublicId, type IdPrefix } from '../common/ids';
import type { Page } from '../common/pagination';
import { midnightIn } from '../common/time-zones';
import { Database } from '../database/database';
import { isUnknownTimeZone } from '../database/errors';
import { visibleInboxesOf, type UserRow } from '../users/user.entity';
import {
  ConversationReportQuery,
  PricingReportQuery,
  PricingReportResponse,
  PricingReportRow,
  ReportSummaryQuery,
  ReportSummaryResponse,
  ReportSummaryRow,
} from './report.dto';
import { ReportRepository, type ConversationReportRow, type ReportGrouping, type SummaryFilter } from './report.repository';
import { requestedInboxOf } from '../users/requested-inbox';

/** The most days or weeks one summary grouped by time answers (ten years of days): a longer period is grouped by week or not by time. */
const MAX_TIME_GROUPS = 3660;
/** Conversations read per statement by the CSV: memory stays that of one page, whatever the period. */
const CSV_PAGE = 1000;

/** How each grouping by who or where names its keys, and what a key of nobody is called. */
const NAMED_GROUPS: Partial<
  Record<ReportGrouping, { prefix: IdPrefix; table: 'users' | 'teams' | 'inboxes'; nobody: string; removed: string }>
> = {
  agent: { prefix: 'user', table: 'users', nobody: 'Unassigned', removed: 'Removed user' },
  team: { prefix: 'team', table: 'teams', nobody: 'No team', removed: 'Removed team' },
  inbox: { prefix: 'inb', table: 'inboxes', nobody: 'No inbox', removed: 'Removed inbox' },
};

const NO_DURATION = { median: null, p90: null };

/** Figures over a period, each kept to what the reader sees: an admin every inbox, an agent theirs and their own figures. */
@Injectable()
export class ReportsService {
  private readonly logger = new Logger(ReportsService.name);

  constructor(
    private readonly database: Database,
    private readonly reports: ReportRepository,
  ) {}

  /** What the channel said the period's outbound messages cost, per inbox, category, type and model. */
  async pricing(query: PricingReportQuery, reader: UserRow, now = new Date()): Promise<PricingReportResponse> {
    const { from, to } = periodOf(query, 'UTC', now);
    const rows = await this.reports.pricing(this.database.db, {
      from,
      to,
      inboxId: requestedInboxOf(query.inbox_id, reader),
      visibleInboxes: visibleInboxesOf(reader),
    });
    return { data: rows.map(PricingReportRow.of) };
  }

  /**
   * The team's figures over the period, one row per group: conversations opened, resolved and
   * open, messages, first response and resolution times (median and 90th percentile, computed by
   * the database from the recorded facts), waiting time, ratings and campaign sends.
   */
  async summary(query: ReportSummaryQuery, reader: UserRow, now = new Date()): Promise<ReportSummaryResponse> {
    const filter = await this.filterOf(query, query.group_by ?? 'total', reader, now);
    const groupDays = filter.groupBy === 'day' ? 1 : filter.groupBy === 'week' ? 7 : null;
    // An hour's slack: a period of whole local days may be an hour longer across a clock change.
    if (groupDays !== null && filter.to.getTime() - filter.from.getTime() > MAX_TIME_GROUPS * groupDays * 86_400_000 + 3_600_000)
      throw new BadRequestException(
        `group_by=${filter.groupBy} answers at most ${MAX_TIME_GROUPS} ${filter.groupBy}s: group a longer period by week or leave out group_by`,
      );
    const db = this.database.db;
    const statements = [
      this.reports.opened(db, filter),
      this.reports.resolved(db, filter),
      this.reports.firstResponses(db, filter),
      this.reports.messageCounts(db, filter),
      filter.groupBy === 'day' || filter.groupBy === 'week' ? this.reports.buckets(db, filter) : Promise.resolve(null),
    ] as const;
    // Every statement ends before the answer, a failed one or not: none runs on once the request is answered.
    const failed = (await Promise.allSettled(statements)).find(
      (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected',
    );
    if (failed) {
      if (isUnknownTimeZone(failed.reason)) throw new BadRequestException(`time_zone ${filter.timeZone} is not known to the database`);
      throw failed.reason;
    }
    const [opened, resolved, firstResponses, messages, buckets] = await Promise.all(statements);
    const rows = new Map<string | null, ReportSummaryRow>();
    const rowOf = (key: string | null): ReportSummaryRow => {
      let row = rows.get(key);
      if (!row) {
        row = {
          group: { key, label: '' },
          conversations_opened: 0,
          conversations_resolved: 0,
          conversations_open: 0,
          messages_in: 0,
          messages_out: 0,
          first_response_seconds: NO_DURATION,
          resolution_seconds: NO_DURATION,
          waiting_seconds: NO_DURATION,
          csat: { average: null, count: 0, ratings: [0, 0, 0, 0, 0] },
          campaign_sends: 0,
        };
        rows.set(key, row);
      }
      return row;
    };
    if (buckets) for (const key of buckets) rowOf(key);
    else if (filter.groupBy === 'total') rowOf('total');
    let openBefore = 0;
    for (const found of opened) {
      if (buckets && found.key === null) {
        openBefore = found.open_at_end;
        continue;
      }
      const row = rowOf(found.key);
      row.conversations_opened += found.opened;
      if (!buckets) row.conversations_open = found.open_at_end;
    }
    for (const found of resolved) {
      const row = rowOf(found.key);
      row.conversations_resolved = found.resolved;
      row.resolution_seconds = { median: found.resolution_median, p90: found.resolution_p90 };
      row.waiting_seconds = { median: found.waiting_median, p90: found.waiting_p90 };
      row.csat = { average: found.csat_average, count: found.csat_count, ratings: found.csat_ratings };
    }
    for (const found of firstResponses) {
      rowOf(found.key).first_response_seconds = { median: found.first_response_median, p90: found.first_response_p90 };
    }
    for (const found of messages)
      Object.assign(rowOf(found.key), {
        messages_in: found.messages_in,
        messages_out: found.messages_out,
        campaign_sends: found.campaign_sends,
      });
    if (buckets) {
      // Open at each bucket's end: those open at the period's start, plus those started, less those ended, since.
      const started = new Map<string | null, number>();
      const ended = new Map<string | null, number>();
      for (const found of opened) {
        started.set(found.key, (started.get(found.key) ?? 0) + found.starts);
        ended.set(found.key, (ended.get(found.key) ?? 0) + found.stops);
      }
      let open = openBefore;
      for (const key of buckets) {
        open += (started.get(key) ?? 0) - (ended.get(key) ?? 0);
        rowOf(key).conversations_open = open;
      }
      for (const row of rows.values()) row.group.label = filter.groupBy === 'week' ? `Week of ${row.group.key}` : row.group.key!;
      return { data: [...rows.values()] };
    }
    return { data: await this.named(filter.groupBy, [...rows.values()]) };
  }

  /**
   * The CSV of the conversations opened in the period, one row each (a reopened one sums its
   * openings), oldest first, streamed page by page. An agent's counts only the episodes they held
   * last: each row names its agents.
   */
  async conversationsCsv(query: ConversationReportQuery, reader: UserRow, now = new Date()): Promise<Readable> {
    const filter = await this.filterOf(query, 'total', reader, now);
    if (reader.role !== 'admin') filter.userId = reader.id;
    // The first page is read before the answer starts: a database that is down is a 503, not a cut CSV.
    const first = await this.reports.conversations(this.database.db, filter, { limit: CSV_PAGE });
    return pipeline(Readable.from(this.conversationRecords(filter, first)), stringify(), (error) => {
      if ((error as NodeJS.ErrnoException | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.warn('The client left before the conversations report ended');
    });
  }

  private async *conversationRecords(filter: SummaryFilter, first: Page<ConversationReportRow>): AsyncGenerator<string[]> {
    yield [
      'conversation_id',
      'inbox_id',
      'contact_id',
      'assigned_to',
      'team_id',
      'opened_at',
      'first_response_at',
      'resolved_at',
      'first_response_seconds',
      'resolution_seconds',
      'csat_rating',
      'first_response_by',
      'waiting_seconds',
      'openings',
    ];
    for (let page = first; ;) {
      for (const row of page.data) {
        yield [
          toPublicId('conv', row.conversation_id),
          toPublicId('inb', row.inbox_id),
          toPublicId('ct', row.contact_id),
          row.assigned_to === null ? '' : toPublicId('user', row.assigned_to),
          row.team_id === null ? '' : toPublicId('team', row.team_id),
          row.opened_at.toISOString(),
          row.first_response_at?.toISOString() ?? '',
          row.resolved_at?.toISOString() ?? '',
          row.first_response_seconds === null ? '' : String(Math.round(row.first_response_seconds)),
          row.resolution_seconds === null ? '' : String(Math.round(row.resolution_seconds)),
          row.csat_rating === null ? '' : String(row.csat_rating),
          row.first_responder_id === null ? '' : toPublicId('user', row.first_responder_id),
          String(Math.round(row.waiting_seconds)),
          String(row.openings),
        ];
      }
      if (!page.next_cursor) return;
      page = await this.reports.conversations(this.database.db, filter, { limit: CSV_PAGE, cursor: page.next_cursor });
    }
  }

  /**
   * The facts' filter of a query: the period, where and whose, kept to what the reader may see (an
   * agent: their inboxes; by agent, themselves; by team or for a team, their teams).
   */
  private async filterOf(query: ConversationReportQuery, groupBy: ReportGrouping, reader: UserRow, now: Date): Promise<SummaryFilter> {
    const timeZone = query.time_zone ?? 'UTC';
    const { from, to } = periodOf(query, timeZone, now);
    let userId = query.user_id === undefined ? undefined : parsePublicId('user', query.user_id)!;
    const teamId = query.team_id === undefined ? undefined : parsePublicId('team', query.team_id)!;
    let visibleTeams: string[] | null = null;
    if (reader.role !== 'admin') {
      if (userId !== undefined && userId !== reader.id)
        throw new ForbiddenException('An agent sees only their own figures: leave out user_id or name yourself');
      if (groupBy === 'agent') userId = reader.id;
      if (groupBy === 'team' || teamId !== undefined) {
        visibleTeams = await this.reports.teamsOf(this.database.db, reader.id);
        if (teamId !== undefined && !visibleTeams.includes(teamId))
          throw new ForbiddenException('An agent sees only the figures of their own teams');
      }
    }
    return {
      from,
      to,
      timeZone,
      businessHours: query.business_hours === 'true',
      groupBy,
      inboxId: requestedInboxOf(query.inbox_id, reader),
      teamId,
      userId,
      visibleInboxes: visibleInboxesOf(reader),
      visibleTeams,
    };
  }

  /** Rows grouped by agent, team or inbox with public keys and names, by name (nobody last). */
  private async named(groupBy: ReportGrouping, rows: ReportSummaryRow[]): Promise<ReportSummaryRow[]> {
    const naming = NAMED_GROUPS[groupBy];
    if (!naming) {
      for (const row of rows) row.group.label = 'Total';
      return rows;
    }
    const ids = rows.map((row) => row.group.key).filter((key): key is string => key !== null);
    const names = new Map((await this.reports.names(this.database.db, naming.table, ids)).map((found) => [found.id, found.name]));
    for (const row of rows) {
      const id = row.group.key;
      row.group =
        id === null ? { key: null, label: naming.nobody } : { key: toPublicId(naming.prefix, id), label: names.get(id) ?? naming.removed };
    }
    return rows.sort((a, b) => (a.group.key === null ? 1 : b.group.key === null ? -1 : a.group.label.localeCompare(b.group.label)));
  }
}

/**
 * The period asked for: from (default the start of this month in the zone) to (default now), a
 * date alone being its midnight in the zone; a 400 unless from is before to.
 */
function periodOf(query: { from?: string; to?: string }, timeZone: string, now: Date): { from: Date; to: Date } {
  const momentOf = (value: string) => (value.length === 10 ? midnightIn(value, timeZone) : new Date(value));
  const from = query.from ? momentOf(query.from) : midnightIn(monthStartIn(now, timeZone), timeZone);
  const to = query.to ? momentOf(query.to) : now;
  if (from >= to) throw new BadRequestException('from must be before to');
  return { from, to };
}

/** The first day (`YYYY-MM-01`) of the month `now` is in, in the zone. */
function monthStartIn(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit' }).formatToParts(now);
  const part = (type: string) => parts.find((found) => found.type === type)!.value;
  return `${part('year')}-${part('month')}-01`;
}

import { BadRequestException, Injectable } from '@nestjs/common';
import { parsePublicId } from '../common/ids';
import { Database } from '../database/database';
import { visibleInboxesOf, type UserRow } from '../users/user.entity';
import { PricingReportQuery, PricingReportResponse, PricingReportRow } from './report.dto';
import { ReportRepository } from './report.repository';

/** The longest period one report sums: a year and a day, so a calendar year always fits. */
const MAX_PERIOD_DAYS = 366;

/** Figures over a period, each kept to what the reader sees: an admin every inbox, an agent theirs. */
@Injectable()
export class ReportsService {
  constructor(
    private readonly database: Database,
    private readonly reports: ReportRepository,
  ) {}

  /** What the channel said the period's outbound messages cost, per inbox, category, type and model. */
  async pricing(query: PricingReportQuery, reader: UserRow, now = new Date()): Promise<PricingReportResponse> {
    const { from, to } = periodOf(query, now);
    const rows = await this.reports.pricing(this.database.db, {
      from,
      to,
      inboxId: query.inbox_id === undefined ? undefined : parsePublicId('inb', query.inbox_id)!,
      visibleInboxes: visibleInboxesOf(reader),
    });
    return { data: rows.map(PricingReportRow.of) };
  }
}

/** The period asked for: from (default the start of this month, UTC) to (default now); a 400 unless from is before to, within MAX_PERIOD_DAYS. */
function periodOf(query: { from?: string; to?: string }, now: Date): { from: Date; to: Date } {
  const from = query.from ? new Date(query.from) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = query.to ? new Date(query.to) : now;
  if (from >= to) throw new BadRequestException('from must be before to');
  if (to.getTime() - from.getTime() > MAX_PERIOD_DAYS * 86_400_000)
    throw new BadRequestException(`from and to must be at most ${MAX_PERIOD_DAYS} days apart`);
  return { from, to };
}

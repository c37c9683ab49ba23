import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, ValidateBy } from 'class-validator';
import { IsDateOrDateTime, IsDateOrZonedTime } from '../common/date-or-time';
import { toPublicId } from '../common/ids';
import { IsPublicId } from '../common/is-public-id';
import { IsOmittable } from '../common/omittable';
import { isTimeZone } from '../common/time-zones';
import type { PricingRow, ReportGrouping } from './report.repository';

export class PricingReportQuery {
  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-01',
    description: 'From this moment on (inclusive); the start of the current month (UTC) when left out',
  })
  @IsOmittable()
  @IsDateOrDateTime()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-12-01', description: 'Before this moment (exclusive); now when left out' })
  @IsOmittable()
  @IsDateOrDateTime()
  to?: string;

  @ApiPropertyOptional({
    description: 'Only the messages of this inbox (404 for one the caller does not see)',
    example: 'inb_00000000000070008000000000000001',
  })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;
}

export class PricingReportRow {
  @ApiProperty({ example: 'inb_00000000000070008000000000000001' })
  inbox_id!: string;

  @ApiProperty({ example: 'marketing', description: 'As the channel names it: marketing, utility, authentication, service, …' })
  category!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'regular',
    description: '`regular` (charged), `free_customer_service` or `free_entry_point`; null where the channel said none',
  })
  type!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'PMP', description: 'Null where the channel said none' })
  pricing_model!: string | null;

  @ApiProperty({ example: 42, description: 'Outbound messages sent in the period with this pricing' })
  messages!: number;

  static of(row: PricingRow): PricingReportRow {
    return {
      inbox_id: toPublicId('inb', row.inbox_id),
      category: row.category,
      type: row.type,
      pricing_model: row.pricing_model,
      messages: row.messages,
    };
  }
}

export class PricingReportResponse {
  @ApiProperty({ type: [PricingReportRow] })
  data!: PricingReportRow[];
}

export const REPORT_GROUPINGS: Exclude<ReportGrouping, 'total'>[] = ['day', 'week', 'agent', 'team', 'inbox'];

/** A period, where and whose, as the summary and the CSV of conversations take them. */
export class ConversationReportQuery {
  @ApiPropertyOptional({
    example: '2026-11-01',
    description:
      'From this moment on (inclusive); a date alone is its midnight in `time_zone`. The start of the current month when left out',
  })
  @IsOmittable()
  @IsDateOrZonedTime()
  from?: string;

  @ApiPropertyOptional({
    example: '2026-12-01',
    description: 'Before this moment (exclusive); a date alone is its midnight in `time_zone`. Now when left out',
  })
  @IsOmittable()
  @IsDateOrZonedTime()
  to?: string;

  @ApiPropertyOptional({
    description: 'Only this inbox (404 for one the caller does not see)',
    example: 'inb_00000000000070008000000000000001',
  })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;

  @ApiPropertyOptional({ description: "Only this team's figures", example: 'team_0000000000007000800000000000000a' })
  @IsOmittable()
  @IsPublicId('team', 'a team id')
  team_id?: string;

  @ApiPropertyOptional({
    description: "Only this agent's figures (an agent may only name themselves)",
    example: 'user_0000000000007000800000000000000b',
  })
  @IsOmittable()
  @IsPublicId('user', 'a user id')
  user_id?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    default: 'false',
    description: "`true`: durations count only the time within each inbox's business hours (as they were when the fact was recorded)",
  })
  @IsOmittable()
  @IsIn(['true', 'false'], { message: 'business_hours must be true or false' })
  business_hours?: 'true' | 'false';

  @ApiPropertyOptional({
    default: 'UTC',
    example: 'Europe/Berlin',
    description: 'The IANA time zone of the dates given and of days and weeks',
  })
  @IsOmittable()
  @ValidateBy({
    name: 'isTimeZone',
    validator: {
      // Area/Location names (and UTC) only: JavaScript and PostgreSQL read abbreviations such as CET differently.
      validate: (value: unknown) =>
        typeof value === 'string' && /^(UTC|[A-Z][A-Za-z]+(\/[A-Za-z0-9_+-]+)+)$/.test(value) && isTimeZone(value),
      defaultMessage: () => 'time_zone must be an IANA time zone such as Europe/Berlin',
    },
  })
  time_zone?: string;
}

export class ReportSummaryQuery extends ConversationReportQuery {
  @ApiPropertyOptional({
    enum: REPORT_GROUPINGS,
    description:
      'One row per local day or week (every one of the period, in order), agent, team or inbox; one row for the whole period when left out',
  })
  @IsOmittable()
  @IsIn(REPORT_GROUPINGS, { message: `group_by must be one of ${REPORT_GROUPINGS.join(', ')}` })
  group_by?: Exclude<ReportGrouping, 'total'>;
}

export class ReportGroup {
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-16',
    description: 'The day or week (its Monday) `YYYY-MM-DD`, a `user_…`, `team_…` or `inb_…` id, `total`; null: nobody (no agent, no team)',
  })
  key!: string | null;

  @ApiProperty({
    example: '2026-11-16',
    description: "What the console shows: the date, the agent's, team's or inbox's name, `Unassigned`, `No team`",
  })
  label!: string;
}

export class DurationFigures {
  @ApiProperty({ type: Number, nullable: true, example: 540, description: 'Seconds; null without any' })
  median!: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 3600, description: 'Seconds, the 90th percentile; null without any' })
  p90!: number | null;
}

export class CsatFigures {
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 4.5,
    description: 'The average rating (1-5) of the episodes resolved in the period; null without any',
  })
  average!: number | null;

  @ApiProperty({ example: 12 })
  count!: number;

  @ApiProperty({ type: [Number], example: [0, 1, 0, 3, 8], description: 'How many rated 1, 2, 3, 4 and 5' })
  ratings!: number[];
}

export class ReportSummaryRow {
  @ApiProperty({ type: ReportGroup })
  group!: ReportGroup;

  @ApiProperty({
    description:
      'Conversations opened (new, or reopened after a close) in the period; by agent or team (or for one), those handed to them in the period',
  })
  conversations_opened!: number;

  @ApiProperty({
    description: 'Closes in the period (each episode of a reopened conversation counts); by agent and team, those who held it last',
  })
  conversations_resolved!: number;

  @ApiProperty({
    description:
      "Open (or snoozed) at the group's end: the end of the day or week, else the end of the period; by agent or team, those they hold",
  })
  conversations_open!: number;

  @ApiProperty({ description: "Customers' messages; by agent and team, in the threads they held when the message came" })
  messages_in!: number;

  @ApiProperty({ description: 'Outbound messages (automatic and campaign ones included); by agent, those they sent' })
  messages_out!: number;

  @ApiProperty({
    type: DurationFigures,
    description:
      "From the customer's first message of an episode to the first agent's answer (automatic messages are not answers); by agent, who answered",
  })
  first_response_seconds!: DurationFigures;

  @ApiProperty({
    type: DurationFigures,
    description: 'From the opening of an episode to its close, of the episodes resolved in the period',
  })
  resolution_seconds!: DurationFigures;

  @ApiProperty({
    type: DurationFigures,
    description: 'Time open and unassigned (in the queue), of the episodes resolved in the period, in calendar seconds',
  })
  waiting_seconds!: DurationFigures;

  @ApiProperty({ type: CsatFigures })
  csat!: CsatFigures;

  @ApiProperty({ description: 'Campaign messages the channel accepted (sent, delivered or read)' })
  campaign_sends!: number;
}

export class ReportSummaryResponse {
  @ApiProperty({ type: [ReportSummaryRow] })
  data!: ReportSummaryRow[];
}

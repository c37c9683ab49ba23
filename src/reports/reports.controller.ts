import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { CurrentUser } from '../users/current-user.decorator';
import type { UserRow } from '../users/user.entity';
import {
  ConversationReportQuery,
  PricingReportQuery,
  PricingReportResponse,
  ReportSummaryQuery,
  ReportSummaryResponse,
} from './report.dto';
import { ReportsService } from './reports.service';

@ApiTags('Reports')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get('summary')
  @ApiOperation({
    summary: 'How the team is doing: conversations, messages, first response and resolution times, ratings',
    description:
      'Figures of the period [from, to), one row per group, read from facts recorded as each conversation changed: first responses ' +
      "(the first agent's answer after the customer's first message of an episode; automatic, campaign messages and notes are not " +
      'answers), resolutions (each close; a reopened conversation has one episode per opening), who held each conversation when, its ' +
      "time in the queue. Medians and 90th percentiles in seconds, of the calendar or (`business_hours=true`) of each inbox's business " +
      'hours. An admin sees every inbox; an agent their inboxes, by agent only themselves and by team their teams (another agent or ' +
      'team is a 403). A period over 366 days, or one that ends before it starts, is a 400.',
  })
  @ApiOkResponse({ type: ReportSummaryResponse })
  @ApiErrors(400)
  summary(@Query() query: ReportSummaryQuery, @CurrentUser() reader: UserRow): Promise<ReportSummaryResponse> {
    return this.reports.summary(query, reader);
  }

  @Get('conversations.csv')
  @ApiOperation({
    summary: 'One row per conversation episode opened in the period, as CSV, streamed',
    description:
      'Columns: conversation_id, inbox_id, contact_id, assigned_to (who held it last), team_id, opened_at, first_response_at, ' +
      'resolved_at, first_response_seconds, resolution_seconds (calendar or, with `business_hours=true`, business-hours seconds), ' +
      'csat_rating, first_response_by, waiting_seconds (in the queue). A conversation reopened after a close has one row per ' +
      'opening. The filters of the summary apply (`user_id`: the episodes they held last); an agent gets the episodes they held last.',
  })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiErrors(400)
  async conversationsCsv(@Query() query: ConversationReportQuery, @CurrentUser() reader: UserRow): Promise<StreamableFile> {
    return new StreamableFile(await this.reports.conversationsCsv(query, reader), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="conversations.csv"',
    });
  }

  @Get('pricing')
  @ApiOperation({
    summary: 'What outbound messages cost, as the channel priced them',
    description:
      'Outbound messages created in [from, to) counted per inbox, pricing category, type and model, as the channel reported them on their ' +
      'statuses (messages it never priced are not counted). An admin sees every inbox, an agent their own. A period over 366 days, or ' +
      'one that ends before it starts, is a 400.',
  })
  @ApiOkResponse({ type: PricingReportResponse })
  @ApiErrors(400)
  pricing(@Query() query: PricingReportQuery, @CurrentUser() reader: UserRow): Promise<PricingReportResponse> {
    return this.reports.pricing(query, reader);
  }
}

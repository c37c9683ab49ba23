import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { CurrentUser } from '../users/current-user.decorator';
import type { UserRow } from '../users/user.entity';
import { PricingReportQuery, PricingReportResponse } from './report.dto';
import { ReportsService } from './reports.service';

@ApiTags('Reports')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

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

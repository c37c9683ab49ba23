import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { type Page, PageOf } from '../common/pagination';
import { Roles } from '../users/roles.decorator';
import { AuditEntryResponse, AuditLogQuery } from '../audit/audit.dto';
import { AuditLogService } from '../audit/audit-log.service';

@ApiTags('Audit log')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/audit-log')
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @Roles('admin')
  @ApiOperation({
    summary: 'Read the audit log, newest first (admin)',
    description:
      'Logins (succeeded, failed, locked), 2FA changes, users, roles, invitations, passwords, API tokens, webhooks, contact exports, merges and deletions, dead-letter replays, inboxes and their members, teams, automation rules, and admins’ changes of campaigns (the `action` filter lists every action). Kept AUDIT_RETENTION; never written or deleted through the API.',
  })
  @ApiOkResponse({ type: PageOf(AuditEntryResponse, 'AuditEntryPage') })
  @ApiErrors(400)
  list(@Query() query: AuditLogQuery): Promise<Page<AuditEntryResponse>> {
    return this.audit.list(query);
  }
}

import { Module } from '@nestjs/common';
import { AuditLogController } from './audit-log.controller';

/** The audit log's read API for admins (the recording is the global AuditModule's, below every feature). */
@Module({ controllers: [AuditLogController] })
export class AuditLogModule {}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IsDateOrDateTime } from '../common/date-or-time';
import { toPublicId } from '../common/ids';
import { IsPublicId } from '../common/is-public-id';
import { IsOmittable } from '../common/omittable';
import { PageQuery } from '../common/pagination';
import { AUDIT_ACTIONS, type AuditAction, type AuditEntryRow } from './audit-entry.entity';

export class AuditLogQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only what this user did', example: 'user_01a2047c8e2078c99d14947d2651598e' })
  @IsOmittable()
  @IsPublicId('user', 'a user id')
  actor?: string;

  @ApiPropertyOptional({ enum: AUDIT_ACTIONS })
  @IsOmittable()
  @IsIn(AUDIT_ACTIONS, { message: `action must be one of ${AUDIT_ACTIONS.join(', ')}` })
  action?: AuditAction;

  @ApiPropertyOptional({ format: 'date-time', description: 'From this moment on (inclusive)' })
  @IsOmittable()
  @IsDateOrDateTime()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Before this moment (exclusive)' })
  @IsOmittable()
  @IsDateOrDateTime()
  to?: string;
}

export class AuditActor {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'user_01a2047c8e2078c99d14947d2651598e',
    description: 'Null once the user is deleted',
  })
  id!: string | null;

  @ApiProperty({ description: 'Their e-mail at the time of the action' })
  email!: string;
}

export class AuditEntryResponse {
  @ApiProperty({ example: 'aud_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiProperty({ type: AuditActor, nullable: true, description: 'Who did it; null when nobody was signed in (a failed login)' })
  actor!: AuditActor | null;

  @ApiProperty({ type: String, nullable: true, description: 'The client address, as the trusted proxies report it' })
  ip!: string | null;

  @ApiProperty({ enum: AUDIT_ACTIONS })
  action!: AuditAction;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'What it was done to: a user_…, wh_…, tok_…, ct_… id',
    example: 'user_01a2047c8e2078c99d14947d2651598e',
  })
  target!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'What changed, by action (never a secret)' })
  details!: Record<string, unknown>;

  static of(row: AuditEntryRow): AuditEntryResponse {
    return {
      id: toPublicId('aud', row.id),
      at: row.at.toISOString(),
      actor: row.actor === null ? null : { id: row.actor_id === null ? null : toPublicId('user', row.actor_id), email: row.actor },
      ip: row.ip,
      action: row.action,
      target: row.target,
      details: row.details,
    };
  }
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length } from 'class-validator';
import { IsDateOrDateTime } from '../../common/date-or-time';
import { toPublicId } from '../../common/ids';
import { IsOmittable } from '../../common/omittable';
import { trimmed } from '../../common/transforms';
import type { ApiTokenRow } from './api-token.entity';

export class CreateApiTokenDto {
  @ApiProperty({ example: 'CRM sync', description: 'What the token is for, to recognise it in the list' })
  @Transform(trimmed)
  @IsString()
  @Length(1, 100)
  name!: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'When it stops working; never when absent' })
  @IsOmittable()
  @IsDateOrDateTime()
  expires_at?: string;
}

export class ApiTokenResponse {
  @ApiProperty({ example: 'tok_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ example: 'user_01a2047c8e2078c99d14947d2651598e', description: 'Its owner: the token acts with their role' })
  user_id!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Updated at most once a minute' })
  last_used_at!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The client address of its last use' })
  last_used_ip!: string | null;

  static of(row: ApiTokenRow): ApiTokenResponse {
    return {
      id: toPublicId('tok', row.id),
      name: row.name,
      user_id: toPublicId('user', row.user_id),
      created_at: row.created_at.toISOString(),
      expires_at: row.expires_at?.toISOString() ?? null,
      last_used_at: row.last_used_at?.toISOString() ?? null,
      last_used_ip: row.last_used_ip,
    };
  }
}

export class CreatedApiTokenResponse extends ApiTokenResponse {
  @ApiProperty({
    example: 'tinbox_Qm9vL0hmY2V4a3FxR3pWb2t2bVRXcFFtTjJ4dFZkRGI',
    description: 'The secret, shown this once: send it as `Authorization: Bearer <token>`',
  })
  token!: string;
}

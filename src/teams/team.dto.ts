import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsString, Length, MaxLength } from 'class-validator';
import { toPublicId } from '../common/ids';
import { IsPublicId } from '../common/is-public-id';
import { IsOmittable } from '../common/omittable';
import { trimmed } from '../common/transforms';
import type { TeamRow } from './team.entity';

const NAME_RULE = '1 to 100 characters, trimmed; unique case-insensitively';

export class CreateTeamDto {
  @ApiProperty({ example: 'Billing', minLength: 1, maxLength: 100, description: NAME_RULE })
  @Transform(trimmed)
  @IsString()
  @Length(1, 100)
  name!: string;

  @ApiPropertyOptional({ example: 'Refunds, invoices and payment questions', maxLength: 500, description: 'Empty when left out' })
  @IsOmittable()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['user_01a2047c8e2078c99d14947d2651598e'],
    description: 'Its members; none when left out',
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsPublicId('user', 'user ids', { each: true })
  member_ids?: string[];

  @ApiPropertyOptional({
    type: [String],
    example: ['inb_00000000000070008000000000000001'],
    description: 'The inboxes it works: a conversation of one of these may be handed to the team; none when left out',
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsPublicId('inb', 'inbox ids', { each: true })
  inbox_ids?: string[];
}

/** Any of the fields; `member_ids` and `inbox_ids` replace the sets. */
export class UpdateTeamDto {
  @ApiPropertyOptional({ example: 'Billing', minLength: 1, maxLength: 100, description: NAME_RULE })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOmittable()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({ type: [String], description: 'Every member: the set is replaced' })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsPublicId('user', 'user ids', { each: true })
  member_ids?: string[];

  @ApiPropertyOptional({ type: [String], description: 'Every inbox it works: the set is replaced' })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsPublicId('inb', 'inbox ids', { each: true })
  inbox_ids?: string[];
}

export class TeamResponse {
  @ApiProperty({ example: 'team_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' })
  id!: string;

  @ApiProperty({ example: 'Billing' })
  name!: string;

  @ApiProperty({ example: 'Refunds, invoices and payment questions' })
  description!: string;

  @ApiProperty({ type: [String], example: ['user_01a2047c8e2078c99d14947d2651598e'] })
  member_ids!: string[];

  @ApiProperty({ type: [String], example: ['inb_00000000000070008000000000000001'] })
  inbox_ids!: string[];

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(row: TeamRow): TeamResponse {
    return {
      id: toPublicId('team', row.id),
      name: row.name,
      description: row.description,
      member_ids: row.member_ids.map((id) => toPublicId('user', id)),
      inbox_ids: row.inbox_ids.map((id) => toPublicId('inb', id)),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

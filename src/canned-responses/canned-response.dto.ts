import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { IsOmittable } from '../common/omittable';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import type { CannedResponseRow } from './canned-response.entity';
import { trimmed } from '../common/transforms';

export const MAX_SHORTCUT_LENGTH = 32;
/** As long as a WhatsApp text message may be. */
export const MAX_CANNED_TEXT_LENGTH = 4096;
const SHORTCUT = /^[\p{L}\p{Nd}_-]+$/u;

const IsPresent = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

const SHORTCUT_DOC = {
  minLength: 1,
  maxLength: MAX_SHORTCUT_LENGTH,
  pattern: '^[\\p{L}\\p{Nd}_-]+$',
  example: 'thanks',
  description: `1 to ${MAX_SHORTCUT_LENGTH} letters, digits, - and _; unique, compared case- and accent-insensitively (409)`,
};
const TEXT_DOC = { minLength: 1, maxLength: MAX_CANNED_TEXT_LENGTH, example: 'Thanks for writing! An agent will answer shortly.' };

// Validators run bottom-up and only the first failure is reported: the shape checks sit lowest.

export class CreateCannedResponseDto {
  @ApiProperty(SHORTCUT_DOC)
  @Matches(SHORTCUT, { message: 'shortcut must hold only letters, digits, - and _' })
  @Length(1, MAX_SHORTCUT_LENGTH)
  @IsString()
  shortcut!: string;

  @ApiProperty({ ...TEXT_DOC, description: 'Trimmed' })
  @Transform(trimmed)
  @Length(1, MAX_CANNED_TEXT_LENGTH)
  @IsString()
  text!: string;
}

/** Either field or both. */
export class UpdateCannedResponseDto {
  @ApiPropertyOptional(SHORTCUT_DOC)
  @IsPresent()
  @Matches(SHORTCUT, { message: 'shortcut must hold only letters, digits, - and _' })
  @Length(1, MAX_SHORTCUT_LENGTH)
  @IsString()
  shortcut?: string;

  @ApiPropertyOptional({ ...TEXT_DOC, description: 'Trimmed' })
  @IsPresent()
  @Transform(trimmed)
  @Length(1, MAX_CANNED_TEXT_LENGTH)
  @IsString()
  text?: string;
}

export class ListCannedResponsesQuery extends PageQuery {
  @ApiPropertyOptional({
    maxLength: 100,
    description: 'A shortcut starting with it (a leading / ignored), or a text holding every word of it; case- and accent-insensitive',
  })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @MaxLength(100)
  q?: string;
}

export class CannedResponseResponse {
  @ApiProperty({ example: 'cr_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' })
  id!: string;

  @ApiProperty({ example: 'thanks' })
  shortcut!: string;

  @ApiProperty({ example: 'Thanks for writing! An agent will answer shortly.' })
  text!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'user_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d',
    description: 'Its author; null once the author is deleted',
  })
  created_by!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(row: CannedResponseRow): CannedResponseResponse {
    return {
      id: toPublicId('cr', row.id),
      shortcut: row.shortcut,
      text: row.text,
      created_by: row.created_by ? toPublicId('user', row.created_by) : null,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsObject, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { IsInteractiveMessage } from '../channel/interactive-message';
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

const INTERACTIVE_DOC = {
  type: Object,
  description:
    'An interactive message (buttons, a list, a link or a form) sent instead of text, in the shape and within the limits of ' +
    'POST /api/v1/conversations/{id}/messages with type interactive; its body is the text, so text is left out. ' +
    'On PATCH, null makes it a text response again (keeping the body as its text unless text is given)',
  example: {
    type: 'list',
    body: { text: 'Which branch is nearest to you?' },
    action: { button: 'Choose a branch', sections: [{ rows: [{ id: 'hamburg', title: 'Hamburg' }] }] },
  },
};

// Validators run bottom-up and only the first failure is reported: the shape checks sit lowest.

export class CreateCannedResponseDto {
  @ApiProperty(SHORTCUT_DOC)
  @Matches(SHORTCUT, { message: 'shortcut must hold only letters, digits, - and _' })
  @Length(1, MAX_SHORTCUT_LENGTH)
  @IsString()
  shortcut!: string;

  @ApiPropertyOptional({ ...TEXT_DOC, description: 'Trimmed; required unless interactive is given' })
  @ValidateIf((dto: CreateCannedResponseDto) => dto.text !== undefined || dto.interactive === undefined)
  @Transform(trimmed)
  @Length(1, MAX_CANNED_TEXT_LENGTH)
  @IsString()
  text?: string;

  @ApiPropertyOptional(INTERACTIVE_DOC)
  @IsPresent()
  @IsInteractiveMessage()
  @IsObject()
  interactive?: Record<string, unknown>;
}

/** Any of the fields. */
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

  @ApiPropertyOptional({ ...INTERACTIVE_DOC, nullable: true })
  @ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null)
  @IsInteractiveMessage()
  @IsObject()
  interactive?: Record<string, unknown> | null;
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

  @ApiProperty({ example: 'Thanks for writing! An agent will answer shortly.', description: "The text; an interactive one's body" })
  text!: string;

  @ApiProperty({
    ...INTERACTIVE_DOC,
    nullable: true,
    description: 'The interactive message sent instead of the text; null for a text response',
  })
  interactive!: Record<string, unknown> | null;

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
      interactive: row.interactive,
      created_by: row.created_by ? toPublicId('user', row.created_by) : null,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

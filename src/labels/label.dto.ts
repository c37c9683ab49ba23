import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length, Matches, ValidateIf } from 'class-validator';
import { toPublicId } from '../common/ids';
import { DEFAULT_LABEL_COLOR, MAX_LABEL_NAME_LENGTH, type LabelRow } from './label.entity';
import { trimmed } from '../common/transforms';

const lowercase = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.toLowerCase() : value);

/** Applies the validators only when the field is present: `null` is then refused like any other wrong type. */
const IsPresent = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** No commas (a name must be safe in a comma-separated list) and no control characters. */
const NAME_PATTERN = /^[^,\p{Cc}]+$/u;
const NAME_RULE = `1 to ${MAX_LABEL_NAME_LENGTH} characters, without commas or control characters; trimmed; unique case-insensitively`;
const COLOR_PATTERN = /^#[0-9a-f]{6}$/;

// Validators run bottom-up and only the first failure is reported: the shape checks sit lowest.

export class CreateLabelDto {
  @ApiProperty({ example: 'vip', minLength: 1, maxLength: MAX_LABEL_NAME_LENGTH, description: NAME_RULE })
  @Transform(trimmed)
  @Matches(NAME_PATTERN, { message: 'name must not contain commas or control characters' })
  @Length(1, MAX_LABEL_NAME_LENGTH)
  @IsString()
  name!: string;

  @ApiPropertyOptional({ example: '#1f93ff', default: DEFAULT_LABEL_COLOR, description: '`#rrggbb` (answered in lowercase)' })
  @IsPresent()
  @Transform(lowercase)
  @Matches(COLOR_PATTERN, { message: 'color must be a hex color like #1f93ff' })
  @IsString()
  color?: string;
}

/** Either field or both. A new name shows on every conversation with the label. */
export class UpdateLabelDto {
  @ApiPropertyOptional({ example: 'vip', minLength: 1, maxLength: MAX_LABEL_NAME_LENGTH, description: NAME_RULE })
  @IsPresent()
  @Transform(trimmed)
  @Matches(NAME_PATTERN, { message: 'name must not contain commas or control characters' })
  @Length(1, MAX_LABEL_NAME_LENGTH)
  @IsString()
  name?: string;

  @ApiPropertyOptional({ example: '#1f93ff', description: '`#rrggbb` (answered in lowercase)' })
  @IsPresent()
  @Transform(lowercase)
  @Matches(COLOR_PATTERN, { message: 'color must be a hex color like #1f93ff' })
  @IsString()
  color?: string;
}

export class LabelResponse {
  @ApiProperty({ example: 'lbl_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' })
  id!: string;

  @ApiProperty({ example: 'vip' })
  name!: string;

  @ApiProperty({ example: '#1f93ff' })
  color!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(label: LabelRow): LabelResponse {
    return {
      id: toPublicId('lbl', label.id),
      name: label.name,
      color: label.color,
      created_at: label.created_at.toISOString(),
      updated_at: label.updated_at.toISOString(),
    };
  }
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length, Matches } from 'class-validator';
import { IsOmittable } from '../common/omittable';
import { IsPublicId } from '../common/is-public-id';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import { HEADER_FORMATS, type HeaderFormat, type TemplateParameters } from './template-parameters';
import type { TemplateRow } from './template.entity';
import { SANDBOX_CATALOGUE } from '../channel/channel-client';

export class ButtonParametersResponse {
  @ApiProperty({ example: 0, description: 'The position of the button in the template, from 0: the index of its send component' })
  index!: number;

  @ApiProperty({
    example: 'url',
    description: 'The button type of the definition, lower case: quick_reply, url, copy_code, otp, flow, catalog, mpm, phone_number, …',
  })
  type!: string;

  @ApiProperty({
    example: 1,
    description:
      'Parameters its send component carries: 1 for a URL with a variable (text: the suffix), copy_code (coupon_code), otp (text: the code, ' +
      'sent with sub_type url), quick_reply (payload), flow and catalog (action); 0 for the rest. quick_reply, flow and catalog buttons may be ' +
      'left out of a send.',
  })
  parameters!: number;
}

export class TemplateParametersResponse {
  @ApiProperty({
    enum: HEADER_FORMATS,
    nullable: true,
    description:
      'What the header takes at send time: its media (image, video, document; location), text when its text has a variable, else null',
  })
  header!: HeaderFormat | null;

  @ApiProperty({ example: 0, description: 'Variables of a text header' })
  header_text!: number;

  @ApiProperty({
    example: 2,
    description: 'Variables of the body ({{1}}, … or, with parameter_format NAMED, {{name}}, each named in the send)',
  })
  body!: number;

  @ApiProperty({ type: [ButtonParametersResponse] })
  buttons!: ButtonParametersResponse[];
}

export class TemplateResponse {
  @ApiProperty({ example: 'tpl_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '102290129340398',
    description: 'The business account whose catalogue it is (inboxes on one account share it); null for the sandbox’s own',
  })
  business_account_id!: string | null;

  @ApiProperty({ example: 'order_update' })
  name!: string;

  @ApiProperty({ example: 'en_US' })
  language!: string;

  @ApiProperty({ example: 'UTILITY', description: 'MARKETING, UTILITY or AUTHENTICATION, as the channel says' })
  category!: string;

  @ApiProperty({
    example: 'APPROVED',
    description:
      'As the channel says (APPROVED, PENDING, REJECTED, PAUSED, DISABLED, …); DELETED once it is gone from the business account. Only APPROVED ones can be sent',
  })
  status!: string;

  @ApiProperty({
    type: [Object],
    description: "The channel's definition: HEADER, BODY, FOOTER, BUTTONS, … components as the Graph API lists them",
  })
  components!: Record<string, unknown>[];

  @ApiProperty({ type: TemplateParametersResponse, description: 'What a send must fill' })
  parameters!: TemplateParameters;

  @ApiProperty({ format: 'date-time', description: 'When the catalogue last saw the template change' })
  updated_at!: string;

  static of(row: TemplateRow): TemplateResponse {
    return {
      id: toPublicId('tpl', row.id),
      business_account_id: row.catalogue === SANDBOX_CATALOGUE ? null : row.catalogue,
      name: row.name,
      language: row.language,
      category: row.category,
      status: row.status,
      components: row.components,
      parameters: row.parameters,
      updated_at: row.updated_at.toISOString(),
    };
  }
}

export class ListTemplatesQuery extends PageQuery {
  @ApiPropertyOptional({
    example: 'inb_00000000000070008000000000000001',
    description:
      'Only the catalogue this inbox sends from (its business account’s): the templates a conversation of it can send. Without it, the catalogues of every active inbox the caller sees',
  })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;

  @ApiPropertyOptional({ example: 'APPROVED', description: 'A status as the channel names it; case-insensitive' })
  @IsOmittable()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toUpperCase() : value))
  @IsString()
  @Matches(/^[A-Z_]{1,40}$/, { message: 'status must be a template status such as APPROVED' })
  status?: string;

  @ApiPropertyOptional({ example: 'en_US' })
  @IsOmittable()
  @IsString()
  @Matches(/^[A-Za-z]{2,3}(_[A-Za-z0-9]{2,8})*$/, { message: 'language must be a language code such as en or en_US' })
  language?: string;

  @ApiPropertyOptional({ description: 'Part of the name, case-insensitive' })
  @IsOmittable()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 100)
  q?: string;
}

export class SyncResponse {
  @ApiProperty({
    example: 12,
    description: 'Templates the business accounts have now, every catalogue of the active inboxes read (every page)',
  })
  synced!: number;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsObject, IsString, Length, Max, Min, ValidateBy, ValidateNested } from 'class-validator';
import { IsZonedTime } from '../common/date-or-time';
import { parsePublicId, toPublicId } from '../common/ids';
import { IsPublicId } from '../common/is-public-id';
import { IsOmittable, IsOmittableOrNull } from '../common/omittable';
import { PageQuery } from '../common/pagination';
import { trimmed } from '../common/transforms';
import { attributeKeyProblem } from '../contacts/contact-attributes';
import { TemplateDto } from '../conversations/message.dto';
import { BodyMayBeAbsent } from '../common/validation.pipe';
import { placeholderProblem } from './campaign-parameters';
import {
  CAMPAIGN_STATUSES,
  type CampaignAudience,
  type CampaignRow,
  type CampaignStatus,
  type CampaignTotals,
  type PendingRecipient,
  type RecipientRow,
} from './campaign.entity';
import type { RecipientFilter } from './campaign.repository';

export const MAX_RATE_PER_SECOND = 1000;
export const DEFAULT_RATE_PER_SECOND = 10;
const MAX_LISTED_CONTACTS = 10_000;
const PUBLIC_STATUSES: RecipientFilter[] = ['queued', 'sent', 'delivered', 'read', 'replied', 'failed', 'skipped'];

/** Attribute filters: at most 20 keys, each a contact attribute's key, each value a string, number or boolean. */
const IsAttributeFilters = (): PropertyDecorator =>
  ValidateBy({
    name: 'isAttributeFilters',
    validator: {
      validate: (value: unknown) => attributeFiltersProblem(value) === null,
      defaultMessage: (args) => attributeFiltersProblem(args?.value) ?? 'audience.attributes is invalid',
    },
  });

function attributeFiltersProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'audience.attributes must be an object';
  const entries = Object.entries(value);
  if (entries.length > 20) return 'audience.attributes takes at most 20 keys';
  for (const [key, item] of entries) {
    const problem = attributeKeyProblem(key);
    if (problem) return `audience.attributes: ${problem}`;
    if (!['string', 'number', 'boolean'].includes(typeof item)) return `audience.attributes.${key} must be a string, number or boolean`;
  }
  return null;
}

/** The template's `{{contact.…}}` placeholders must each name something a contact has. */
const IsFillable = (): PropertyDecorator =>
  ValidateBy({
    name: 'isFillable',
    validator: {
      validate: (value: unknown) => placeholderProblem(value) === null,
      defaultMessage: (args) => `template: ${placeholderProblem(args?.value)}`,
    },
  });

export class CampaignAudienceDto {
  @ApiPropertyOptional({ type: [String], example: ['customer'], description: 'Contacts with any of these tags' })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 50, { each: true })
  tags?: string[];

  @ApiPropertyOptional({
    type: [String],
    example: ['order-shipped'],
    description: 'Contacts with a conversation that has any of these labels',
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 100, { each: true })
  labels?: string[];

  @ApiPropertyOptional({
    type: [String],
    example: ['ct_01a2047c8e2078c99d14947d2651598e'],
    description: `Contacts named one by one (at most ${MAX_LISTED_CONTACTS})`,
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(MAX_LISTED_CONTACTS)
  @IsPublicId('ct', 'contact ids', { each: true })
  contact_ids?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    example: { city: 'Berlin' },
    description: 'Contacts whose attributes equal each of these',
  })
  @IsOmittable()
  @IsAttributeFilters()
  attributes?: Record<string, string | number | boolean>;
}

const AUDIENCE_DESCRIPTION =
  'Who gets it: the contacts in `contact_ids`, and the contacts that match every filter given (`tags`: any of them; `labels`: a ' +
  'conversation with any of them; `attributes`: each equal). Resolved into the recipient list when the campaign starts.';
const TEMPLATE_DESCRIPTION =
  'An approved template of the inbox, `components` as a send takes them. Any parameter text may name `{{contact.name}}`, ' +
  '`{{contact.phone}}` or `{{contact.attributes.<key>}}`, filled per recipient (one without the value is skipped with that reason).';
const RATE_DESCRIPTION = `Messages a second at most, 1 to ${MAX_RATE_PER_SECOND}; keep it below the number's throughput (80 by default on the Cloud API)`;

/** What a campaign sends, from where and to whom: the body of a preview, and the most of a new campaign's. */
export class PreviewCampaignDto {
  @ApiProperty({ example: 'inb_01a2047c8e2078c99d14947d2651598e' })
  @IsPublicId('inb', 'an inbox id')
  inbox_id!: string;

  @ApiProperty({ type: TemplateDto, description: TEMPLATE_DESCRIPTION })
  @IsObject({ message: 'template must be an object' })
  @ValidateNested()
  @Type(() => TemplateDto)
  @IsFillable()
  template!: TemplateDto;

  @ApiProperty({ type: CampaignAudienceDto, description: AUDIENCE_DESCRIPTION })
  @IsObject({ message: 'audience must be an object' })
  @ValidateNested()
  @Type(() => CampaignAudienceDto)
  audience!: CampaignAudienceDto;
}

/** A campaign: what the preview takes, with its name, start time and pace. */
export class CreateCampaignDto extends PreviewCampaignDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Shipping notice, November' })
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '2026-12-01T09:00:00Z',
    description: 'When `schedule` starts it; null: at once',
  })
  @IsOmittableOrNull()
  @IsZonedTime()
  scheduled_at?: string | null;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_RATE_PER_SECOND, default: DEFAULT_RATE_PER_SECOND, description: RATE_DESCRIPTION })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(MAX_RATE_PER_SECOND)
  rate_per_second?: number;
}

export class UpdateCampaignDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ description: 'Before it starts only' })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;

  @ApiPropertyOptional({ type: TemplateDto, description: 'Before it starts only' })
  @IsOmittable()
  @IsObject({ message: 'template must be an object' })
  @ValidateNested()
  @Type(() => TemplateDto)
  @IsFillable()
  template?: TemplateDto;

  @ApiPropertyOptional({ type: CampaignAudienceDto, description: 'Before it starts only' })
  @IsOmittable()
  @IsObject({ message: 'audience must be an object' })
  @ValidateNested()
  @Type(() => CampaignAudienceDto)
  audience?: CampaignAudienceDto;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Before it starts only' })
  @IsOmittableOrNull()
  @IsZonedTime()
  scheduled_at?: string | null;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_RATE_PER_SECOND,
    description: 'Any time before it ends: a running campaign takes it at its next step',
  })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(MAX_RATE_PER_SECOND)
  rate_per_second?: number;
}

@BodyMayBeAbsent()
export class ScheduleCampaignDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '2026-12-01T09:00:00Z',
    description: "Overrides the campaign's `scheduled_at`; null or past: at once",
  })
  @IsOmittableOrNull()
  @IsZonedTime()
  scheduled_at?: string | null;
}

export class ListRecipientsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: PUBLIC_STATUSES, description: 'Only recipients in this status (`queued`: not sent yet)' })
  @IsOmittable()
  @IsIn(PUBLIC_STATUSES, { message: `status must be one of ${PUBLIC_STATUSES.join(', ')}` })
  status?: RecipientFilter;
}

/** The audience as the API writes it: contacts by their public ids. */
export function audienceOf(dto: CampaignAudienceDto): CampaignAudience {
  return {
    ...(dto.tags?.length ? { tags: dto.tags } : {}),
    ...(dto.labels?.length ? { labels: dto.labels } : {}),
    ...(dto.contact_ids?.length ? { contact_ids: [...new Set(dto.contact_ids.map((id) => parsePublicId('ct', id)!))] } : {}),
    ...(dto.attributes && Object.keys(dto.attributes).length > 0 ? { attributes: dto.attributes } : {}),
  };
}

export class CampaignAudienceResponse {
  @ApiProperty({ type: [String] })
  tags!: string[];

  @ApiProperty({ type: [String] })
  labels!: string[];

  @ApiProperty({ type: [String] })
  contact_ids!: string[];

  @ApiProperty({ type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } })
  attributes!: Record<string, string | number | boolean>;

  static of(audience: CampaignAudience): CampaignAudienceResponse {
    return {
      tags: audience.tags ?? [],
      labels: audience.labels ?? [],
      contact_ids: (audience.contact_ids ?? []).map((id) => toPublicId('ct', id)),
      attributes: audience.attributes ?? {},
    };
  }
}

export class CampaignTotalsResponse {
  @ApiProperty({ description: 'Everyone on the recipient list, the skipped ones included' })
  recipients!: number;

  @ApiProperty({ description: 'Not sent yet (waiting for their turn, or being sent)' })
  queued!: number;

  @ApiProperty({ description: 'Accepted by the channel (the delivered and read ones included)' })
  sent!: number;

  @ApiProperty({ description: 'Delivered to the phone (the read ones included)' })
  delivered!: number;

  @ApiProperty()
  read!: number;

  @ApiProperty({ description: 'Wrote back within 7 days of the message' })
  replied!: number;

  @ApiProperty()
  failed!: number;

  @ApiProperty({ description: 'Not sent to: opted out, blocked, or missing a value the template needs' })
  skipped!: number;
}

export class CampaignResponse {
  @ApiProperty({ example: 'cmp_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ example: 'inb_01a2047c8e2078c99d14947d2651598e' })
  inbox_id!: string;

  @ApiProperty({ type: TemplateDto })
  template!: TemplateDto;

  @ApiProperty({ type: CampaignAudienceResponse })
  audience!: CampaignAudienceResponse;

  @ApiProperty({ type: String, nullable: true })
  scheduled_at!: string | null;

  @ApiProperty()
  rate_per_second!: number;

  @ApiProperty({ enum: CAMPAIGN_STATUSES })
  status!: CampaignStatus;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why it paused by itself (its template no longer sendable, its inbox disabled, steps failing); null otherwise',
  })
  status_reason!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'user_01a2047c8e2078c99d14947d2651598e' })
  created_by!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'When its recipient list was built and sending began' })
  started_at!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'When it completed or was cancelled' })
  finished_at!: string | null;

  @ApiProperty({ type: CampaignTotalsResponse })
  totals!: CampaignTotalsResponse;

  @ApiProperty()
  created_at!: string;

  @ApiProperty()
  updated_at!: string;

  static of(row: CampaignRow, totals: CampaignTotals): CampaignResponse {
    return {
      id: toPublicId('cmp', row.id),
      name: row.name,
      inbox_id: toPublicId('inb', row.inbox_id),
      template: row.template,
      audience: CampaignAudienceResponse.of(row.audience),
      scheduled_at: row.scheduled_at?.toISOString() ?? null,
      rate_per_second: row.rate_per_second,
      status: row.status,
      status_reason: row.status_reason,
      created_by: row.created_by ? toPublicId('user', row.created_by) : null,
      started_at: row.started_at?.toISOString() ?? null,
      finished_at: row.finished_at?.toISOString() ?? null,
      totals,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

export class RecipientContactResponse {
  @ApiProperty({ example: 'ct_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ type: String, nullable: true })
  name!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '+4915112345678' })
  phone!: string | null;

  @ApiProperty({ type: String, nullable: true })
  wa_user_id!: string | null;
}

export class CampaignRecipientResponse {
  @ApiProperty({ type: RecipientContactResponse, nullable: true, description: 'null once the contact was deleted' })
  contact!: RecipientContactResponse | null;

  @ApiProperty({ enum: PUBLIC_STATUSES })
  status!: RecipientFilter;

  @ApiProperty({ type: String, nullable: true, example: 'opted out', description: 'Why it was skipped, or the channel’s reason it failed' })
  reason!: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 131026, description: "The channel's error code of a failure" })
  error_code!: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'msg_01a2047c8e2078c99d14947d2651598e' })
  message_id!: string | null;

  @ApiProperty({ type: String, nullable: true })
  replied_at!: string | null;

  @ApiProperty()
  updated_at!: string;

  static of(row: RecipientRow): CampaignRecipientResponse {
    return {
      contact: row.contact_id
        ? { id: toPublicId('ct', row.contact_id), name: row.contact_name, phone: row.contact_phone, wa_user_id: row.contact_wa_user_id }
        : null,
      status: row.replied_at ? 'replied' : row.status === 'pending' ? 'queued' : row.status,
      reason: row.reason,
      error_code: row.error_code,
      message_id: row.message_id ? toPublicId('msg', row.message_id) : null,
      replied_at: row.replied_at?.toISOString() ?? null,
      updated_at: row.updated_at.toISOString(),
    };
  }
}

export class AudienceSizeResponse {
  @ApiProperty({ description: 'Contacts the audience names now' })
  contacts!: number;

  @ApiProperty({ description: 'Of them, opted out of campaigns: they will be skipped' })
  opted_out!: number;

  @ApiProperty({ description: 'Of them, blocked: they will be skipped' })
  blocked!: number;
}

export class CampaignSampleResponse {
  @ApiProperty({ type: RecipientContactResponse })
  contact!: RecipientContactResponse;

  @ApiProperty({ type: String, nullable: true, description: 'The message as this contact would read it; null when they would be skipped' })
  text!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'Why they would be skipped' })
  skipped!: string | null;

  static of(contact: PendingRecipient, outcome: { text: string } | { skipped: string }): CampaignSampleResponse {
    return {
      contact: { id: toPublicId('ct', contact.contact_id!), name: contact.name, phone: contact.phone, wa_user_id: contact.wa_user_id },
      text: 'text' in outcome ? outcome.text : null,
      skipped: 'skipped' in outcome ? outcome.skipped : null,
    };
  }
}

export class CampaignPreviewResponse {
  @ApiProperty({ type: AudienceSizeResponse })
  audience!: AudienceSizeResponse;

  @ApiProperty({ type: [CampaignSampleResponse], description: 'The first three contacts of the audience, with their message filled' })
  samples!: CampaignSampleResponse[];
}

import { ApiProperty, ApiPropertyOptional, IntersectionType, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { IsOmittable } from '../common/omittable';
import { IsPublicId } from '../common/is-public-id';
import type { ContactFilter } from './contact.repository';
import { type UserRow } from '../users/user.entity';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import { toE164 } from '../common/phone';
import {
  ATTRIBUTE_KEY_RULE,
  ATTRIBUTE_VALUE_RULE,
  attributesProblem,
  MAX_ATTRIBUTES,
  sortedAttributes,
  type ContactAttributes,
} from './contact-attributes';
import type { ContactRow } from './contact.entity';
import { WA_USER_ID_PATTERN } from './channel-customer';
import { trimmed } from '../common/transforms';
import { requestedInboxOf } from '../users/requested-inbox';

export const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 50;

/** A parseable phone becomes E.164 here; anything else is left as sent for `IsPhone` to refuse. */
const phoneNormalised = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? (toE164(value) ?? value) : value);

/** Strings trimmed and repeated tags dropped (first occurrence kept); other values left for the validators. */
const tagsNormalised = ({ value }: { value: unknown }): unknown => {
  if (!Array.isArray(value)) return value;
  const seen = new Set<unknown>();
  const result: unknown[] = [];
  for (const item of value.map((tag: unknown) => (typeof tag === 'string' ? tag.trim() : tag))) {
    if (seen.has(item)) continue;
    seen.add(item);
    result.push(item);
  }
  return result;
};

/** A phone already normalised to E.164 by `phoneNormalised`. */
function IsPhone(): PropertyDecorator {
  return ValidateBy({
    name: 'isPhone',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && toE164(value) === value,
      defaultMessage: () => '$property must be a phone number in international format, e.g. +16315551234',
    },
  });
}

const WA_USER_ID_EXAMPLE = 'US.13491208655302741918';

function IsWaUserId(): PropertyDecorator {
  return ValidateBy({
    name: 'isWaUserId',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && WA_USER_ID_PATTERN.test(value),
      defaultMessage: () => `$property must be the channel's business-scoped user id, e.g. ${WA_USER_ID_EXAMPLE}`,
    },
  });
}

/** An attributes object (see contact-attributes.ts); the message names the key at fault. */
function IsAttributes(): PropertyDecorator {
  return ValidateBy({
    name: 'isAttributes',
    validator: {
      validate: (value: unknown) => attributesProblem(value) === null,
      defaultMessage: (args) => attributesProblem(args?.value) ?? 'attributes must be an object',
    },
  });
}

/** Applies the validators only when the field is present: `null` is then refused like any other wrong type. */
const IsPresent = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

// Validators run bottom-up and only the first failure is reported: the shape checks sit lowest.

const TAGS_DESCRIPTION = `Up to ${MAX_TAGS} tags of 1 to ${MAX_TAG_LENGTH} characters; trimmed, repeats dropped`;
const tagsDoc = (description: string, extra: ApiPropertyOptions = {}): ApiPropertyOptions =>
  ({ type: [String], maxItems: MAX_TAGS, example: ['vip'], description, ...extra }) as ApiPropertyOptions;

const ATTRIBUTES_DESCRIPTION = `Custom attributes: up to ${MAX_ATTRIBUTES} keys of ${ATTRIBUTE_KEY_RULE} (not phone, name, email, tags or wa_user_id), each ${ATTRIBUTE_VALUE_RULE}`;
const attributesDoc = (description: string, extra: ApiPropertyOptions = {}): ApiPropertyOptions =>
  ({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    maxProperties: MAX_ATTRIBUTES,
    example: { plan: 'pro', seats: 12, churned: false },
    description,
    ...extra,
  }) as ApiPropertyOptions;

/** A contact needs a phone or a user id (or both). */
export class CreateContactDto {
  @ApiPropertyOptional({
    example: '+16315551234',
    description: 'International format, with or without +; stored and answered in E.164. Required unless wa_user_id is given',
  })
  @ValidateIf((dto: CreateContactDto) => dto.phone !== undefined || dto.wa_user_id === undefined)
  @Transform(phoneNormalised)
  @IsPhone()
  phone?: string;

  @ApiPropertyOptional({
    example: WA_USER_ID_EXAMPLE,
    description: "The channel's business-scoped user id, for a customer known without a phone; unique",
  })
  @IsPresent()
  @Transform(trimmed)
  @IsWaUserId()
  wa_user_id?: string;

  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 200, example: 'Maria Lopez' })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 254, example: 'maria@example.com' })
  @IsOptional()
  @Transform(trimmed)
  @IsEmail()
  @MaxLength(254)
  email?: string | null;

  @ApiPropertyOptional(tagsDoc(TAGS_DESCRIPTION, { default: [] }))
  @IsPresent()
  @Transform(tagsNormalised)
  @Length(1, MAX_TAG_LENGTH, { each: true, message: `tags must each be 1 to ${MAX_TAG_LENGTH} characters long` })
  @IsString({ each: true, message: 'tags must contain only strings' })
  @ArrayMaxSize(MAX_TAGS)
  @IsArray()
  tags?: string[];

  @ApiPropertyOptional(attributesDoc(ATTRIBUTES_DESCRIPTION, { default: {} }))
  @IsPresent()
  @IsAttributes()
  attributes?: ContactAttributes;
}

/** Any subset of the creation fields, at least one; `name` and `email` may be null to clear them. */
export class UpdateContactDto {
  @ApiPropertyOptional({ example: '+16315551234', description: 'International format, with or without +; stored and answered in E.164' })
  @IsPresent()
  @Transform(phoneNormalised)
  @IsPhone()
  phone?: string;

  @ApiPropertyOptional({ example: WA_USER_ID_EXAMPLE, description: "The channel's business-scoped user id; unique" })
  @IsPresent()
  @Transform(trimmed)
  @IsWaUserId()
  wa_user_id?: string;

  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 200, description: 'null clears it' })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 254, description: 'null clears it' })
  @IsOptional()
  @Transform(trimmed)
  @IsEmail()
  @MaxLength(254)
  email?: string | null;

  @ApiPropertyOptional(tagsDoc(`${TAGS_DESCRIPTION}; replaces the contact's tags`))
  @IsPresent()
  @Transform(tagsNormalised)
  @Length(1, MAX_TAG_LENGTH, { each: true, message: `tags must each be 1 to ${MAX_TAG_LENGTH} characters long` })
  @IsString({ each: true, message: 'tags must contain only strings' })
  @ArrayMaxSize(MAX_TAGS)
  @IsArray()
  tags?: string[];

  @ApiPropertyOptional(attributesDoc(`${ATTRIBUTES_DESCRIPTION}; replaces the contact's attributes (send {} to remove them all)`))
  @IsPresent()
  @IsAttributes()
  attributes?: ContactAttributes;

  @ApiPropertyOptional({ description: 'Admins only (403): opts the customer out of campaigns (true) or back in (false)' })
  @IsOmittable()
  @IsBoolean({ message: 'opted_out must be true or false' })
  opted_out?: boolean;
}

/** The filters of the contact list, which the CSV export takes too. */
export class ContactFilterQuery {
  @ApiPropertyOptional({ maxLength: 200, description: 'Case-insensitive substring of the name, phone, email or username' })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ maxLength: MAX_TAG_LENGTH, description: 'Only contacts with this tag (exact match)' })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, MAX_TAG_LENGTH)
  tag?: string;

  @ApiPropertyOptional({
    example: 'inb_00000000000070008000000000000001',
    description: 'Only the customers with a conversation in this inbox (GET /api/v1/inboxes; 404 for one the caller does not see)',
  })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;
}

export class ListContactsQuery extends IntersectionType(ContactFilterQuery, PageQuery) {}

/** The repository's filter of a validated query (the inbox as its uuid): 404 for an inbox the caller does not see. */
export function contactFilterOf(query: ContactFilterQuery, caller: UserRow): ContactFilter {
  return { q: query.q, tag: query.tag, inboxId: requestedInboxOf(query.inbox_id, caller) };
}

export class ContactResponse {
  @ApiProperty({ example: 'ct_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' })
  id!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '+16315551234',
    description: 'E.164; null for a customer the channel knows only by wa_user_id',
  })
  phone!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: WA_USER_ID_EXAMPLE,
    description: "The channel's business-scoped user id (contacts[].user_id of its webhooks), null until the channel or an agent gives it",
  })
  wa_user_id!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'maria.lopez',
    description: 'The username the customer adopted on WhatsApp, as the channel last sent it; shown where there is no phone',
  })
  username!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Maria Lopez' })
  name!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'maria@example.com' })
  email!: string | null;

  @ApiProperty({ type: [String], example: ['vip'] })
  tags!: string[];

  @ApiProperty(attributesDoc('Custom attributes, keys in code-point order'))
  attributes!: ContactAttributes;

  @ApiProperty({
    description: 'Blocked on the channel (POST /api/v1/contacts/:id/block): the customer cannot write in, nor the inbox to them',
  })
  blocked!: boolean;

  @ApiProperty({
    description: 'Takes no campaign: the customer wrote STOP (CAMPAIGN_OPT_OUT_WORDS), or an admin set it; START or an admin clears it',
  })
  opted_out!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(contact: ContactRow): ContactResponse {
    return {
      id: toPublicId('ct', contact.id),
      phone: contact.phone,
      wa_user_id: contact.wa_user_id,
      username: contact.username,
      name: contact.name,
      email: contact.email,
      tags: contact.tags,
      attributes: sortedAttributes(contact.attributes),
      blocked: contact.blocked_at !== null,
      opted_out: contact.opted_out_at !== null,
      created_at: contact.created_at.toISOString(),
      updated_at: contact.updated_at.toISOString(),
    };
  }
}

export class ImportRefusal {
  @ApiProperty({ example: 7, description: 'The line of the file (the header is line 1) on which the refused record ends' })
  line!: number;

  @ApiProperty({ example: 'email "maria@" must be an e-mail address' })
  error!: string;
}

export class ImportResponse {
  @ApiProperty({ example: 99_000, description: 'Lines that created a contact' })
  created!: number;

  @ApiProperty({ example: 997, description: 'Lines that matched an existing contact by phone, whether or not they changed it' })
  updated!: number;

  @ApiProperty({ type: [ImportRefusal], description: 'Lines not imported, in line order' })
  refused!: ImportRefusal[];
}

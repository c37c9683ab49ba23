import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { IsPublicId } from '../common/is-public-id';
import { IsZonedTime } from '../common/date-or-time';
import { IsOmittable } from '../common/omittable';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import { MAX_LABEL_NAME_LENGTH, sortLabelNames } from '../labels/label.entity';
import { CONVERSATION_STATUSES, UNREAD_COUNT_LIMIT, type ConversationStatus, type ConversationWithCustomer } from './conversation.entity';
import { CUSTOMER_WINDOW_MS } from './customer-window';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES, type MessageDirection, type MessageStatus } from './message.entity';
import { trimmed, booleanWord } from '../common/transforms';

/** How many labels one conversation may carry. */
export const MAX_LABELS_PER_CONVERSATION = 50;

/** Names trimmed and repeats (case-insensitively) dropped, the first kept; other values left for the validators. */
const labelNamesNormalised = ({ value }: { value: unknown }): unknown => {
  if (!Array.isArray(value)) return value;
  const seen = new Set<unknown>();
  const result: unknown[] = [];
  for (const item of value.map((name: unknown) => (typeof name === 'string' ? name.trim() : name))) {
    const key = typeof item === 'string' ? item.toLowerCase() : item;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(item);
  }
  return result;
};

/** Applies the validators only when the field is present: `null` is then refused like any other wrong type. */
const IsPresent = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

export class CustomerResponse {
  @ApiProperty({
    description: "The contact's name; without one the phone, else the username, else the user id",
    example: 'Maria Lopez',
  })
  name!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '+16315551234',
    description: 'Null for a customer the channel knows only by wa_user_id',
  })
  phone!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'US.13491208655302741918', description: "The channel's business-scoped user id" })
  wa_user_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'maria.lopez', description: 'The username the customer adopted on WhatsApp' })
  username!: string | null;
}

/** The newest message of a conversation, for the list's preview. */
export class LastMessageResponse {
  @ApiProperty({ example: 'msg_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ enum: MESSAGE_DIRECTIONS })
  direction!: MessageDirection;

  @ApiProperty({ example: 'text' })
  type!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The text, caption or title, where the type has one' })
  text!: string | null;

  @ApiProperty({ enum: MESSAGE_STATUSES })
  status!: MessageStatus;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class CsatAnswerResponse {
  @ApiProperty({ minimum: 1, maximum: 5, example: 5 })
  rating!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'A text the customer wrote within 10 minutes after rating',
    example: 'Quick and kind, thanks',
  })
  comment!: string | null;

  @ApiProperty({ format: 'date-time' })
  rated_at!: string;
}

export class ConversationResponse {
  @ApiProperty({ example: 'conv_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ example: 'inb_00000000000070008000000000000001', description: 'The inbox (WhatsApp number) it is held on' })
  inbox_id!: string;

  @ApiProperty({ enum: CONVERSATION_STATUSES })
  status!: ConversationStatus;

  @ApiProperty({ type: CustomerResponse })
  customer!: CustomerResponse;

  @ApiProperty({ type: String, nullable: true, example: 'user_01a2047c8e2078c99d14947d2651598e' })
  assigned_to!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'team_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d', description: 'The team it is handed to' })
  team_id!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'While open and unassigned: since when it waits for an agent (the queue is served oldest first); null otherwise',
  })
  waiting_since!: string | null;

  @ApiProperty({ type: [String], example: ['billing', 'vip'], description: 'The names of its labels, alphabetically (case-insensitive)' })
  labels!: string[];

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'While snoozed: when it opens again by itself (sooner if the customer writes); null otherwise',
  })
  snoozed_until!: string | null;

  @ApiProperty({ format: 'date-time' })
  last_message_at!: string;

  @ApiProperty({ type: LastMessageResponse, nullable: true, description: 'The newest message of the thread, for a preview' })
  last_message!: LastMessageResponse | null;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: UNREAD_COUNT_LIMIT,
    description: `The caller's unread messages: inbound messages after their read marker (\`POST …/read\`), counted up to ${UNREAD_COUNT_LIMIT}. Absent from events and webhooks, which are read by many.`,
  })
  unread_count?: number;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      "When the 24-hour window for free-form messages closes (24 hours after the customer's last message); null if the customer never wrote",
  })
  window_expires_at!: string | null;

  @ApiProperty({
    type: CsatAnswerResponse,
    nullable: true,
    description:
      "The customer's answer to the satisfaction survey sent when an agent last closed it (the inbox's `csat`); null until they answer",
  })
  csat!: CsatAnswerResponse | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(row: ConversationWithCustomer): ConversationResponse {
    return {
      id: toPublicId('conv', row.id),
      inbox_id: toPublicId('inb', row.inbox_id),
      status: row.status,
      customer: {
        name: row.customer_name ?? row.customer_phone ?? row.customer_username ?? row.customer_wa_user_id ?? '',
        phone: row.customer_phone,
        wa_user_id: row.customer_wa_user_id,
        username: row.customer_username,
      },
      assigned_to: row.assigned_to ? toPublicId('user', row.assigned_to) : null,
      team_id: row.team_id ? toPublicId('team', row.team_id) : null,
      waiting_since: row.waiting_since ? row.waiting_since.toISOString() : null,
      labels: sortLabelNames(row.labels),
      snoozed_until: row.snoozed_until ? row.snoozed_until.toISOString() : null,
      last_message_at: row.last_message_at.toISOString(),
      last_message:
        row.last_message_id === null
          ? null
          : {
              id: toPublicId('msg', row.last_message_id),
              direction: row.last_message_direction!,
              type: row.last_message_type!,
              text: row.last_message_text,
              status: row.last_message_status!,
              created_at: row.last_message_created_at!.toISOString(),
            },
      ...(row.unread_count === undefined ? {} : { unread_count: row.unread_count }),
      csat:
        row.csat_rating === null
          ? null
          : { rating: row.csat_rating, comment: row.csat_comment, rated_at: row.csat_rated_at!.toISOString() },
      window_expires_at: row.last_inbound_at ? new Date(row.last_inbound_at.getTime() + CUSTOMER_WINDOW_MS).toISOString() : null,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

export class ListConversationsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: CONVERSATION_STATUSES, description: '`open` leaves out the snoozed ones' })
  @IsOmittable()
  @IsIn(CONVERSATION_STATUSES)
  status?: ConversationStatus;

  @ApiPropertyOptional({ description: '`me`, `none` (unassigned) or a user id', example: 'me' })
  @IsOmittable()
  @Matches(/^(me|none|user_[0-9a-f]{32})$/, { message: 'assigned_to must be me, none or a user id' })
  assigned_to?: string;

  @ApiPropertyOptional({
    description: 'Only the conversations of this inbox (GET /api/v1/inboxes; 404 for one the caller does not see)',
    example: 'inb_00000000000070008000000000000001',
  })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;

  @ApiPropertyOptional({ description: '`mine` (any team of the caller) or a team id', example: 'mine' })
  @IsOmittable()
  @Matches(/^(mine|team_[0-9a-f]{32})$/, { message: 'team_id must be mine or a team id' })
  team_id?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      '`true`: only the conversations waiting for an agent (open and unassigned), **oldest waiting first** (`waiting_since`); other filters apply too',
  })
  @IsOmittable()
  @Transform(booleanWord)
  @IsBoolean({ message: 'waiting must be true or false' })
  waiting?: boolean;

  @ApiPropertyOptional({ description: 'Part of the customer name, phone or username, case-insensitive' })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, 100)
  q?: string;

  @ApiPropertyOptional({ description: 'Only the conversations with this label (its name, case-insensitive)', example: 'vip' })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, MAX_LABEL_NAME_LENGTH)
  label?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description: '`true`: only the conversations with messages the caller has not read; `false` (or absent): all of them',
  })
  @IsOmittable()
  @Transform(booleanWord)
  @IsBoolean({ message: 'unread must be true or false' })
  unread?: boolean;
}

export class ConversationCountsQuery {
  @ApiPropertyOptional({
    description: 'The counts of this inbox alone (404 for one the caller does not see): the console shows them beside its inbox switcher',
    example: 'inb_00000000000070008000000000000001',
  })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;
}

export class ConversationCountsResponse {
  @ApiProperty({ description: 'Open conversations (not snoozed, not closed)' })
  open!: number;

  @ApiProperty({ description: 'Open conversations assigned to the caller' })
  mine!: number;

  @ApiProperty({ description: 'Open conversations assigned to nobody' })
  unassigned!: number;

  @ApiProperty({
    description: 'Conversations waiting for an agent: open and unassigned, as `unassigned` (listed oldest first with `waiting=true`)',
  })
  waiting!: number;

  @ApiProperty()
  snoozed!: number;

  @ApiProperty()
  closed!: number;

  @ApiProperty({ description: 'Open conversations with messages the caller has not read' })
  unread!: number;
}

/** Every field optional, at least one present; `assigned_to: null` unassigns. */
export class StartConversationDto {
  @ApiProperty({ example: 'ct_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d', description: 'The contact to write to' })
  @IsString()
  contact_id!: string;

  @ApiPropertyOptional({
    example: 'inb_00000000000070008000000000000001',
    description: 'The inbox (number) to write from (GET /api/v1/inboxes); the default inbox when absent',
  })
  @IsOmittable()
  @IsString()
  inbox_id?: string;
}

export class UpdateConversationDto {
  @ApiPropertyOptional({
    enum: CONVERSATION_STATUSES,
    description: 'Closing and reopening are both allowed; `snoozed` needs `snoozed_until`. Leaving `snoozed` clears `snoozed_until`.',
  })
  @IsOmittable()
  @IsIn(CONVERSATION_STATUSES)
  status?: ConversationStatus;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description:
      'With `status: "snoozed"` and only then: a future time (with its time zone) when the conversation opens again by itself, or sooner when the customer writes',
  })
  @IsPresent()
  @IsZonedTime()
  snoozed_until?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'A user id, or null to unassign' })
  @ValidateIf((dto: UpdateConversationDto) => dto.assigned_to !== undefined && dto.assigned_to !== null)
  @IsString()
  assigned_to?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'A team that works the conversation’s inbox (422 otherwise), or null: no team. Recorded as conversation.updated',
  })
  @ValidateIf((dto: UpdateConversationDto) => dto.team_id !== undefined && dto.team_id !== null)
  @IsPublicId('team', 'a team id')
  team_id?: string | null;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_LABELS_PER_CONVERSATION,
    example: ['vip'],
    description: 'Label names (case-insensitive): replaces the set; `[]` removes them all; a name that is no label is a 422',
  })
  @IsPresent()
  @Transform(labelNamesNormalised)
  @Length(1, MAX_LABEL_NAME_LENGTH, { each: true, message: `labels must each be 1 to ${MAX_LABEL_NAME_LENGTH} characters long` })
  @IsString({ each: true, message: 'labels must contain only strings' })
  @ArrayMaxSize(MAX_LABELS_PER_CONVERSATION)
  @IsArray()
  labels?: string[];
}

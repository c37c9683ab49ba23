import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { formatDuration, parseDuration } from '../config/duration';
import { IsBusinessHours, isOpenAt } from './business-hours';
import { IsPublicId } from '../common/is-public-id';
import { IsOmittable, IsOmittableOrNull } from '../common/omittable';
import { toPublicId } from '../common/ids';
import { ASSIGNMENT_MODES, type AssignmentMode, INBOX_STATUSES, type InboxRow, type InboxStatus } from './inbox.entity';

/** The channel's ids of numbers and business accounts are digits. */
const GRAPH_ID = /^[0-9]{1,32}$/;

export class CreateInboxDto {
  @ApiProperty({ example: 'Sales', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  name!: string;

  @ApiProperty({
    example: '106540352242922',
    description:
      "The channel's id of the number (Meta's dashboard: WhatsApp > API Setup); its webhooks are routed by it. Unique among inboxes",
  })
  @IsString()
  @Matches(GRAPH_ID, { message: 'phone_number_id must be the digits of the channel’s id of the number' })
  phone_number_id!: string;

  @ApiPropertyOptional({ example: '102290129340398', description: 'The WhatsApp Business Account of its template catalogue' })
  @IsOmittable()
  @IsString()
  @Matches(GRAPH_ID, { message: 'business_account_id must be the digits of the channel’s id of the business account' })
  business_account_id?: string;

  @ApiProperty({
    writeOnly: true,
    minLength: 1,
    maxLength: 1024,
    description: 'A system user’s token for the Graph API; sealed at rest, never answered',
  })
  @IsString()
  @Length(1, 1024)
  access_token!: string;

  @ApiPropertyOptional({
    writeOnly: true,
    minLength: 1,
    maxLength: 256,
    description:
      'The Meta app’s secret its webhooks are signed with; sealed at rest, never answered. Without one, MESSAGING_APP_SECRET checks them',
  })
  @IsOmittable()
  @IsString()
  @Length(1, 256)
  app_secret?: string;
}

/** How the inbox's conversations reach an agent; PATCH replaces the whole policy (left out: null). */
export class AssignmentPolicyDto {
  @ApiProperty({
    enum: ASSIGNMENT_MODES,
    description:
      '`manual`: people assign. `round_robin`: a conversation that needs an agent goes to the online member below capacity assigned least recently; ' +
      '`balanced`: to the one with the fewest open conversations. With nobody available it waits in the queue, oldest first',
  })
  @IsIn(ASSIGNMENT_MODES, { message: `assignment.mode must be one of ${ASSIGNMENT_MODES.join(', ')}` })
  mode!: AssignmentMode;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 10000,
    example: 6,
    description: 'The most open conversations, in every inbox, an agent may have for the router to give them another; null: no limit',
  })
  @IsOmittableOrNull()
  @IsInt({ message: 'assignment.capacity must be a whole number' })
  @Min(1, { message: 'assignment.capacity must be at least 1' })
  @Max(10000, { message: 'assignment.capacity must be at most 10000' })
  capacity?: number | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'team_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d',
    description: 'Only this team’s members (of the inbox) are given its conversations; the team must work the inbox. null: every member',
  })
  @IsOmittableOrNull()
  @IsPublicId('team', 'assignment.team_id')
  team_id?: string | null;
}

/** A message the inbox sends by itself. */
export class AutomaticMessageDto {
  @ApiProperty({ description: 'Sent only while true' })
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled!: boolean;

  @ApiProperty({ minLength: 1, maxLength: 1024, example: 'Thanks for writing! We answer within the hour.' })
  @IsString()
  @Length(1, 1024)
  text!: string;
}

export class CsatSettingsDto {
  @ApiProperty({ description: 'Sent only while true' })
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled!: boolean;

  @ApiProperty({ minLength: 1, maxLength: 1024, example: 'How did we do? Pick a rating, then tell us more if you like.' })
  @IsString()
  @Length(1, 1024)
  question!: string;
}

/** `30m`, `24h`, `7d`: from a minute to 90 days. */
const IsResolveDelay = (): PropertyDecorator =>
  ValidateBy({
    name: 'isResolveDelay',
    validator: {
      validate: (value: unknown) => {
        const ms = typeof value === 'string' ? parseDuration(value) : null;
        return ms !== null && ms >= 60_000 && ms <= 90 * 86_400_000 && ms % 1000 === 0;
      },
      defaultMessage: () => 'auto_resolve_after must be a duration from 1m to 90d, such as 30m, 24h or 7d',
    },
  });

export class UpdateInboxDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOmittable()
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({ description: 'Not of the default inbox: MESSAGING_PHONE_NUMBER_ID describes it' })
  @IsOmittable()
  @IsString()
  @Matches(GRAPH_ID, { message: 'phone_number_id must be the digits of the channel’s id of the number' })
  phone_number_id?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'null: no template catalogue. Not of the default inbox' })
  @IsOmittableOrNull()
  @IsString()
  @Matches(GRAPH_ID, { message: 'business_account_id must be the digits of the channel’s id of the business account' })
  business_account_id?: string | null;

  @ApiPropertyOptional({ writeOnly: true, minLength: 1, maxLength: 1024, description: 'Replaces the token. Not of the default inbox' })
  @IsOmittable()
  @IsString()
  @Length(1, 1024)
  access_token?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    writeOnly: true,
    minLength: 1,
    maxLength: 256,
    description: 'Replaces the app secret; null: MESSAGING_APP_SECRET checks its webhooks. Not of the default inbox',
  })
  @IsOmittableOrNull()
  @IsString()
  @Length(1, 256)
  app_secret?: string | null;

  @ApiPropertyOptional({
    enum: INBOX_STATUSES,
    description:
      'disabled: it keeps its conversations but neither sends nor receives (its webhooks wait as dead letters). Not the default inbox',
  })
  @IsOmittable()
  @IsIn(INBOX_STATUSES)
  status?: InboxStatus;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: false,
    properties: {
      timezone: { type: 'string', example: 'Europe/Berlin' },
      days: {
        type: 'object',
        example: {
          mon: [
            ['09:00', '12:30'],
            ['13:30', '17:30'],
          ],
          sat: [['10:00', '14:00']],
        },
        additionalProperties: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
      },
      holidays: { type: 'array', items: { type: 'string', format: 'date' }, example: ['2026-12-25'] },
    },
    description:
      'When the inbox is open, in its time zone: each weekday (mon … sun) its intervals `["09:00","17:30"]` (a day left out is closed), ' +
      'and holidays closed all day. null: always open. The away message and `open_now` follow it',
  })
  @IsOmittableOrNull()
  @IsBusinessHours()
  business_hours?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: AutomaticMessageDto,
    nullable: true,
    description: "Sent once, on a customer's first message of a new conversation, inside business hours. null: none",
  })
  @IsOmittableOrNull()
  @IsObject({ message: 'greeting must be an object' })
  @ValidateNested()
  @Type(() => AutomaticMessageDto)
  greeting?: AutomaticMessageDto | null;

  @ApiPropertyOptional({
    type: AutomaticMessageDto,
    nullable: true,
    description: 'Sent when a customer writes outside business hours, at most once per conversation in 12 hours. null: none',
  })
  @IsOmittableOrNull()
  @IsObject({ message: 'away must be an object' })
  @ValidateNested()
  @Type(() => AutomaticMessageDto)
  away?: AutomaticMessageDto | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '24h',
    description:
      'An open conversation without a message for this long is closed, with a note saying so (snoozed ones are left). null: never',
  })
  @IsOmittableOrNull()
  @IsResolveDelay()
  auto_resolve_after?: string | null;

  @ApiPropertyOptional({
    type: CsatSettingsDto,
    nullable: true,
    description:
      "When an agent closes a conversation inside the customer's 24 hours, the customer gets `question` with a list of 5 ratings " +
      '(row ids `csat_1` … `csat_5`); the rating and a text written within 10 minutes after it are kept as the conversation’s `csat`. null: none',
  })
  @IsOmittableOrNull()
  @IsObject({ message: 'csat must be an object' })
  @ValidateNested()
  @Type(() => CsatSettingsDto)
  csat?: CsatSettingsDto | null;

  @ApiPropertyOptional({ type: AssignmentPolicyDto, description: 'Who takes its conversations: replaced whole' })
  @IsOmittable()
  @IsObject({ message: 'assignment must be an object' })
  @ValidateNested()
  @Type(() => AssignmentPolicyDto)
  assignment?: AssignmentPolicyDto;
}

/** An inbox's users, as PUT takes them and GET answers them. */
export class InboxMembersDto {
  @ApiProperty({
    type: [String],
    example: ['user_01a2047c8e2078c99d14947d2651598e'],
    description: 'Every user of the inbox: the set is replaced. Agents see only their inboxes; admins see every inbox whatever the set',
  })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsPublicId('user', 'user ids', { each: true })
  user_ids!: string[];
}

/** What an admin pastes into Meta's dashboard, for every number of the install. */
export class ChannelWebhookResponse {
  @ApiProperty({
    example: 'https://inbox.example.com/api/webhooks/messaging',
    description: 'The callback URL: APP_URL followed by /api/webhooks/messaging, one URL for every number',
  })
  callback_url!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'a-verify-token-of-your-choice',
    description:
      'MESSAGING_WEBHOOK_VERIFY_TOKEN, which Meta sends in the subscription handshake; null: not set, and the handshake is refused',
  })
  verify_token!: string | null;

  @ApiProperty({
    example: ['messages', 'message_template_status_update', 'template_category_update'],
    description: 'The webhook fields to subscribe the app to',
  })
  fields!: string[];
}

/** What the channel answered when asked about the inbox's number with its token. */
export class InboxConnectionResponse {
  @ApiProperty({ description: 'The channel answered, with this token, for this number' })
  ok!: boolean;

  @ApiProperty({ enum: ['whatsapp', 'sandbox'] })
  channel!: 'whatsapp' | 'sandbox';

  @ApiPropertyOptional({ description: 'Why not, in one sentence (the channel’s own reason)' })
  error?: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '15550783881',
    description: 'The number as the channel shows it; stored on the inbox',
  })
  display_phone_number!: string | null;
}

export class AssignmentPolicyResponse {
  @ApiProperty({ enum: ASSIGNMENT_MODES })
  mode!: AssignmentMode;

  @ApiProperty({ type: Number, nullable: true, example: 6 })
  capacity!: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'team_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' })
  team_id!: string | null;
}

export class AutomaticMessageResponse {
  @ApiProperty()
  enabled!: boolean;

  @ApiProperty()
  text!: string;
}

export class CsatSettingsResponse {
  @ApiProperty()
  enabled!: boolean;

  @ApiProperty()
  question!: string;
}

export class InboxResponse {
  @ApiProperty({ example: 'inb_00000000000070008000000000000001' })
  id!: string;

  @ApiProperty({ example: 'Support' })
  name!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '106540352242922',
    description: "The channel's id of the number, which routes its webhooks; null for the sandbox",
  })
  phone_number_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '15550783881' })
  display_phone_number!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '102290129340398', description: 'The WhatsApp Business Account of its templates' })
  business_account_id!: string | null;

  @ApiProperty({ enum: ['active', 'disabled'] })
  status!: InboxStatus;

  @ApiProperty({ description: 'Whether an access token is stored (it is never answered); without one the inbox is the sandbox' })
  has_access_token!: boolean;

  @ApiProperty({ description: 'Whether an app secret is stored (never answered) to check its webhooks’ signatures' })
  has_app_secret!: boolean;

  @ApiProperty({ description: 'The inbox the MESSAGING_* settings describe, which held every conversation before inboxes existed' })
  is_default!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '(#190) Error validating access token: Session has expired',
    description:
      "The channel's refusal of a send that said the number's token or business account is broken (codes 190, 131031); health fails " +
      'while it is set. Cleared by a new access_token, phone_number_id or business_account_id (the MESSAGING_* settings for the default ' +
      'inbox) or a connection test that passes; null when none',
  })
  channel_error!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the channel said so' })
  channel_error_at!: string | null;

  @ApiProperty({ type: AssignmentPolicyResponse, description: 'Who takes its conversations' })
  assignment!: AssignmentPolicyResponse;

  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'As PATCH takes it: `{timezone, days, holidays}`; null: always open',
  })
  business_hours!: Record<string, unknown> | null;

  @ApiProperty({ description: 'Whether it is inside its business hours now (always, without business hours)' })
  open_now!: boolean;

  @ApiProperty({ type: AutomaticMessageResponse, nullable: true })
  greeting!: AutomaticMessageResponse | null;

  @ApiProperty({ type: AutomaticMessageResponse, nullable: true })
  away!: AutomaticMessageResponse | null;

  @ApiProperty({ type: String, nullable: true, example: '24h' })
  auto_resolve_after!: string | null;

  @ApiProperty({ type: CsatSettingsResponse, nullable: true })
  csat!: CsatSettingsResponse | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(row: InboxRow): InboxResponse {
    return {
      id: toPublicId('inb', row.id),
      name: row.name,
      phone_number_id: row.phone_number_id,
      display_phone_number: row.display_phone_number,
      business_account_id: row.business_account_id,
      status: row.status,
      has_access_token: row.access_token !== null,
      has_app_secret: row.app_secret !== null,
      is_default: row.is_default,
      channel_error: row.channel_error,
      channel_error_at: row.channel_error_at?.toISOString() ?? null,
      assignment: {
        mode: row.assignment_mode,
        capacity: row.assignment_capacity,
        team_id: row.assignment_team_id && toPublicId('team', row.assignment_team_id),
      },
      business_hours: row.business_hours as unknown as Record<string, unknown> | null,
      open_now: isOpenAt(row.business_hours, new Date()),
      greeting: row.greeting,
      away: row.away,
      auto_resolve_after: row.auto_resolve_after_seconds === null ? null : formatDuration(row.auto_resolve_after_seconds * 1000),
      csat: row.csat,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

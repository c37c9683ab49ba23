import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsString,
  IsUrl,
  Length,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { INTERACTIVE_TYPES, IsInteractiveMessage } from '../channel/interactive-message';
import { IsPublicId } from '../common/is-public-id';
import { IsOmittable } from '../common/omittable';
import { toPublicId } from '../common/ids';
import { MessageMediaResponse } from '../media/media.dto';
import { PageQuery } from '../common/pagination';
import { MAX_SEARCH_WORDS, searchWords } from '../common/search';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES, type MessageDirection, type MessageRow, type MessageStatus } from './message.entity';
import { CUSTOMER_REACTOR, type ReactionRow } from './reaction.entity';

export const SENDABLE_TYPES = ['text', 'template', 'image', 'document', 'audio', 'video', 'sticker', 'reaction', 'interactive'] as const;
export type SendableType = (typeof SENDABLE_TYPES)[number];
export const MEDIA_TYPES = ['image', 'document', 'audio', 'video', 'sticker'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export class TemplateDto {
  @ApiProperty({ example: 'order_update' })
  @IsString()
  @Length(1, 512)
  name!: string;

  @ApiProperty({ example: 'en_US' })
  @IsString()
  @Length(2, 20)
  language!: string;

  @ApiPropertyOptional({ type: [Object], description: 'As the Graph API takes them' })
  @IsOmittable()
  @IsArray()
  @IsObject({ each: true })
  components?: Record<string, unknown>[];
}

/** A media by `link` (a public https URL the channel fetches) or by `media_id` (an upload, or a customer's media): exactly one. */
export class StickerDto {
  @ApiPropertyOptional({ example: 'https://example.com/invoice.pdf', description: 'A public https URL the channel fetches; or media_id' })
  @ValidateIf((dto: StickerDto) => dto.link !== undefined || dto.media_id === undefined)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'link must be an https URL' })
  @MaxLength(2048)
  link?: string;

  @ApiPropertyOptional({
    example: 'med_01a2047c8e2078c99d14947d2651598e',
    description: 'A media uploaded with POST /api/v1/media (or a ready inbound one), of the kind the type names; or link',
  })
  @IsOmittable()
  @IsString()
  @MaxLength(100)
  media_id?: string;
}

export class MediaDto extends StickerDto {
  @ApiPropertyOptional()
  @IsOmittable()
  @IsString()
  @MaxLength(1024)
  caption?: string;

  @ApiPropertyOptional({ description: 'For documents: the file name the customer sees' })
  @IsOmittable()
  @IsString()
  @MaxLength(240)
  filename?: string;
}

const MESSAGE_ID = /^msg_[0-9a-f]{32}$/;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** A pictograph, a flag (regional indicators) or a keycap: what WhatsApp takes as a reaction. */
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** One emoji (a single grapheme, however many code points make it), or the empty string. */
function IsOneEmojiOrEmpty(): PropertyDecorator {
  return ValidateBy({
    name: 'isOneEmojiOrEmpty',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && (value === '' || ([...graphemes.segment(value)].length === 1 && EMOJI.test(value))),
      defaultMessage: () => '$property must be one emoji, or empty to remove the reaction',
    },
  });
}

export class ReactionDto {
  @ApiProperty({ example: 'msg_01a2047c8e2078c99d14947d2651598e', description: "The customer's message to react to" })
  @Matches(MESSAGE_ID, { message: 'message_id must be a message id (msg_…)' })
  @IsString()
  message_id!: string;

  @ApiProperty({ example: '👍', description: 'One emoji; an empty string removes your reaction' })
  @IsOneEmojiOrEmpty()
  @MaxLength(32)
  @IsString()
  emoji!: string;
}

const typeIs = (type: SendableType) => (dto: SendMessageDto) => dto.type === type;

/**
 * A message to send, shaped like the Graph API's: `type` names the one payload field present.
 * `{"type":"text","text":"Hi"}`, `{"type":"template","template":{…}}`, `{"type":"image","image":{"link":…}}`.
 */
export class SendMessageDto {
  @ApiProperty({ enum: SENDABLE_TYPES })
  @IsIn(SENDABLE_TYPES)
  type!: SendableType;

  @ApiPropertyOptional({ minLength: 1, maxLength: 4096, description: 'With type text' })
  @ValidateIf(typeIs('text'))
  @IsString()
  @Length(1, 4096)
  text?: string;

  @ApiPropertyOptional({ type: TemplateDto, description: 'With type template; allowed outside the 24-hour window' })
  @ValidateIf(typeIs('template'))
  @IsDefined()
  @ValidateNested()
  @Type(() => TemplateDto)
  template?: TemplateDto;

  @ApiPropertyOptional({ type: MediaDto })
  @ValidateIf(typeIs('image'))
  @IsDefined()
  @ValidateNested()
  @Type(() => MediaDto)
  image?: MediaDto;

  @ApiPropertyOptional({ type: MediaDto })
  @ValidateIf(typeIs('document'))
  @IsDefined()
  @ValidateNested()
  @Type(() => MediaDto)
  document?: MediaDto;

  @ApiPropertyOptional({ type: MediaDto })
  @ValidateIf(typeIs('audio'))
  @IsDefined()
  @ValidateNested()
  @Type(() => MediaDto)
  audio?: MediaDto;

  @ApiPropertyOptional({ type: MediaDto })
  @ValidateIf(typeIs('video'))
  @IsDefined()
  @ValidateNested()
  @Type(() => MediaDto)
  video?: MediaDto;

  @ApiPropertyOptional({ type: StickerDto, description: 'A WebP sticker, by link or media_id; no caption' })
  @ValidateIf(typeIs('sticker'))
  @IsDefined()
  @ValidateNested()
  @Type(() => StickerDto)
  sticker?: StickerDto;

  @ApiPropertyOptional({
    type: ReactionDto,
    description: 'With type reaction: not a message of its own; the answer is the message reacted to, with its reactions',
  })
  @ValidateIf(typeIs('reaction'))
  @IsDefined()
  @ValidateNested()
  @Type(() => ReactionDto)
  reaction?: ReactionDto;

  @ApiPropertyOptional({
    type: Object,
    description:
      `With type interactive, inside the 24-hour window: the channel's own shape, {type: ${INTERACTIVE_TYPES.join(' | ')}, header?, body: {text}, footer?, action}. ` +
      'button: 1-3 reply buttons (title at most 20 characters, ids unique, at most 256); list: a button text (at most 20) and 1-10 sections ' +
      'of 1-10 rows in all (title at most 24, description at most 72, ids unique); cta_url: display_text (at most 20) and an https url; ' +
      'flow: flow_id or flow_name, flow_cta (at most 20), flow_token, mode, flow_action, flow_action_payload. Body at most 1024 characters, ' +
      'header (text, or for button and cta_url an image, video or document by link or media_id) and footer at most 60. ' +
      'Anything the channel would refuse is a 400 naming the field.',
    example: {
      type: 'button',
      body: { text: 'What can we do for you?' },
      action: {
        buttons: [
          { type: 'reply', reply: { id: 'track', title: 'Track order' } },
          { type: 'reply', reply: { id: 'agent', title: 'Talk to an agent' } },
        ],
      },
    },
  })
  @ValidateIf(typeIs('interactive'))
  @IsDefined()
  @IsInteractiveMessage()
  interactive?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: 'msg_01a2047c8e2078c99d14947d2651598e',
    description:
      "A message of this conversation to quote (422 for another conversation's, or one that failed); sent as the channel's context",
  })
  @IsOmittable()
  @Matches(MESSAGE_ID, { message: 'reply_to must be a message id (msg_…)' })
  @IsString()
  reply_to?: string;
}

export class ReactionResponse {
  @ApiProperty({ example: '👍' })
  emoji!: string;

  @ApiProperty({ example: 'customer', description: '`customer`, or the id of the user who reacted' })
  by!: string;

  @ApiProperty({ format: 'date-time', description: 'When this emoji was set' })
  created_at!: string;

  static of(row: ReactionRow): ReactionResponse {
    return {
      emoji: row.emoji,
      by: row.reactor === CUSTOMER_REACTOR ? CUSTOMER_REACTOR : toPublicId('user', row.reactor),
      created_at: row.created_at.toISOString(),
    };
  }
}

/** How many users one note may mention. */
export const MAX_MENTIONS = 50;

/** A private note: `{"text": "…", "mentions": ["user_…"]}`. */
export class AddNoteDto {
  @ApiProperty({ minLength: 1, maxLength: 4096, example: 'She was promised a refund last week, see the ticket' })
  @IsString()
  @Length(1, 4096)
  text!: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_MENTIONS,
    example: ['user_01a2047c8e2078c99d14947d2651598e'],
    description: 'Users to notify (a notification of type `mention` each, the author excepted); an id that names no user is a 422',
  })
  @IsOmittable()
  @MaxLength(100, { each: true, message: 'mentions must contain only user ids' })
  @IsString({ each: true, message: 'mentions must contain only user ids' })
  @ArrayMaxSize(MAX_MENTIONS)
  @IsArray()
  mentions?: string[];
}

export class MessageResponse {
  @ApiProperty({ example: 'msg_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ example: 'conv_01a2047c8e2078c99d14947d2651598e' })
  conversation_id!: string;

  @ApiProperty({
    enum: MESSAGE_DIRECTIONS,
    description: '`internal`: a private note of the team, never sent to the customer',
  })
  direction!: MessageDirection;

  @ApiProperty({
    example: 'text',
    description:
      'As the channel names it: text, template, image, document, audio, video, sticker, location, contacts, interactive, button, order, ' +
      'system, unsupported, reaction (a reaction to a message the service does not know), or what the channel sent; `note` for a private note',
  })
  type!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'What a list shows: the text; the caption of media; name and address (or the coordinates) of a location; the names of shared contacts; ' +
      'the chosen title of a button or list reply; the body of a Flows reply; the text of a template button; ' +
      'an order summary ("Order: 3 items, 2 products, catalog <id>"); the body of a system message; null for unsupported ones',
  })
  text!: string | null;

  @ApiProperty({
    type: Object,
    nullable: true,
    description:
      "The type's payload: the channel's for inbound messages (with the quoted message's `context`), the API's for outbound ones; " +
      'null for a text message that quotes nothing',
  })
  content!: Record<string, unknown> | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'msg_01a2047c8e2078c99d14947d2651598e',
    description: 'The message this one quotes',
  })
  reply_to!: string | null;

  @ApiProperty({ type: [ReactionResponse], description: 'One per reactor (the customer, each agent), oldest first' })
  reactions!: ReactionResponse[];

  @ApiProperty({
    type: Object,
    nullable: true,
    description:
      'Inbound: the click-to-WhatsApp ad or post the customer came from, as the channel sent it (source_url, source_id, source_type, headline, body, media_type, ctwa_clid, …)',
  })
  referral!: Record<string, unknown> | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'utility',
    description: "Outbound: the channel's pricing category from its latest status (marketing, utility, authentication, service, …)",
  })
  pricing_category!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'regular',
    description:
      "Outbound: the pricing type of the channel's latest status that had one: `regular` (charged), `free_customer_service` (inside the " +
      'customer service window), `free_entry_point` (after an ad or a Facebook page button)',
  })
  pricing_type!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'PMP',
    description: "Outbound: the channel's pricing model from its latest status that had one (`PMP`, per-message pricing)",
  })
  pricing_model!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "The customer's phone on inbound messages; null on outbound ones and notes, and for a customer known only by their user id (the conversation's customer.wa_user_id)",
  })
  from!: string | null;

  @ApiProperty({
    enum: MESSAGE_STATUSES,
    description:
      'Outbound: queued -> sent -> delivered -> read -> played (voice messages), never backwards, or failed; a note is `sent` once stored',
  })
  status!: MessageStatus;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The channel's reason when status is failed: `(#<code>) <title>: <details>`",
    example: '(#131026) Message undeliverable: Receiver is incapable of receiving this message',
  })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The user who sent an outbound message or wrote a note' })
  sent_by!: string | null;

  @ApiProperty({
    description: 'Sent by the inbox itself (a greeting, an away message, a closing note), `sent_by` null; never counts as an agent’s reply',
  })
  automated!: boolean;

  @ApiProperty({
    type: MessageMediaResponse,
    nullable: true,
    description: 'The media of an image, audio, video, document or sticker message (null for other types, and for media sent by link)',
  })
  media!: MessageMediaResponse | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /** `reactions`: those of this message (others are ignored, so a page's can be passed whole); `media`: the message's media as `MediaService.describe` answers it. */
  static of(
    message: MessageRow,
    customerPhone: string | null,
    reactions: ReactionRow[] = [],
    media: MessageMediaResponse | null = null,
  ): MessageResponse {
    return {
      id: toPublicId('msg', message.id),
      conversation_id: toPublicId('conv', message.conversation_id),
      direction: message.direction,
      type: message.type,
      text: message.text,
      content: message.content,
      reply_to: message.reply_to_id ? toPublicId('msg', message.reply_to_id) : null,
      reactions: reactions.filter((reaction) => reaction.message_id === message.id).map(ReactionResponse.of),
      referral: message.referral,
      pricing_category: message.pricing_category,
      pricing_type: message.pricing_type,
      pricing_model: message.pricing_model,
      from: message.direction === 'inbound' ? customerPhone : null,
      status: message.status,
      error: message.error,
      sent_by: message.sent_by ? toPublicId('user', message.sent_by) : null,
      automated: message.automated,
      media,
      created_at: message.created_at.toISOString(),
    };
  }
}

@ValidatorConstraint({ name: 'searchWordCount' })
class SearchWordCount implements ValidatorConstraintInterface {
  // A q of combining marks alone folds to no word, which would find every message.
  validate(q: unknown): boolean {
    if (typeof q !== 'string') return false;
    const words = searchWords(q).length;
    return words >= 1 && words <= MAX_SEARCH_WORDS;
  }

  defaultMessage(): string {
    return `q must have 1 to ${MAX_SEARCH_WORDS} words`;
  }
}

export class SearchMessagesQuery extends PageQuery {
  @ApiProperty({
    description: 'Words the text must all contain, in any order, as parts of words; case and accents are ignored',
    example: 'refund order',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 200)
  @Validate(SearchWordCount)
  q!: string;

  @ApiPropertyOptional({
    description: 'Only the messages of this inbox’s conversations (404 for one the caller does not see)',
    example: 'inb_00000000000070008000000000000001',
  })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;
}

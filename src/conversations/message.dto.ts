import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { toPublicId } from '../common/ids';
import type { MessageDirection, MessageRow, MessageStatus } from './message.entity';

export const SENDABLE_TYPES = ['text', 'template', 'image', 'document', 'audio', 'video'] as const;
export type SendableType = (typeof SENDABLE_TYPES)[number];
export const MEDIA_TYPES = ['image', 'document', 'audio', 'video'] as const;

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
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  components?: Record<string, unknown>[];
}

export class MediaDto {
  @ApiProperty({ example: 'https://example.com/invoice.pdf' })
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'link must be an https URL' })
  @MaxLength(2048)
  link!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  caption?: string;

  @ApiPropertyOptional({ description: 'For documents: the file name the customer sees' })
  @IsOptional()
  @IsString()
  @MaxLength(240)
  filename?: string;
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
  @IsOptional()
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
    enum: ['inbound', 'outbound', 'internal'],
    description: '`internal`: a private note of the team, never sent to the customer',
  })
  direction!: MessageDirection;

  @ApiProperty({
    example: 'text',
    description:
      'text, template, image, document, audio, video, sticker, location, contacts, interactive, button, reaction, or what the channel sent; `note` for a private note',
  })
  type!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The text, caption, reply title or reaction emoji, where the type has one' })
  text!: string | null;

  @ApiProperty({
    type: Object,
    nullable: true,
    description: 'The channel payload of types other than text; for a note `{"mentions": ["user_…"]}`',
  })
  content!: Record<string, unknown> | null;

  @ApiProperty({ type: String, nullable: true, description: "The customer's phone on inbound messages; null on outbound ones and notes" })
  from!: string | null;

  @ApiProperty({ enum: ['received', 'queued', 'sent', 'delivered', 'read', 'failed'], description: 'A note is `sent` once stored' })
  status!: MessageStatus;

  @ApiProperty({ type: String, nullable: true, description: "The channel's reason when status is failed" })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The user who sent an outbound message or wrote a note' })
  sent_by!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  static of(message: MessageRow, customerPhone: string): MessageResponse {
    return {
      id: toPublicId('msg', message.id),
      conversation_id: toPublicId('conv', message.conversation_id),
      direction: message.direction,
      type: message.type,
      text: message.text,
      content: message.content,
      from: message.direction === 'inbound' ? customerPhone : null,
      status: message.status,
      error: message.error,
      sent_by: message.sent_by ? toPublicId('user', message.sent_by) : null,
      created_at: message.created_at.toISOString(),
    };
  }
}

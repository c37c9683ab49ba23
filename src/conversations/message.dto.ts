import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
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
import { MessageMediaResponse } from '../media/media.dto';
import type { MessageDirection, MessageRow, MessageStatus } from './message.entity';

export const SENDABLE_TYPES = ['text', 'template', 'image', 'document', 'audio', 'video', 'sticker'] as const;
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
  @IsOptional()
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
  @IsOptional()
  @IsString()
  @MaxLength(100)
  media_id?: string;
}

export class MediaDto extends StickerDto {
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

  @ApiPropertyOptional({ type: StickerDto, description: 'A WebP sticker, by link or media_id; no caption' })
  @ValidateIf(typeIs('sticker'))
  @IsDefined()
  @ValidateNested()
  @Type(() => StickerDto)
  sticker?: StickerDto;
}

export class MessageResponse {
  @ApiProperty({ example: 'msg_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ example: 'conv_01a2047c8e2078c99d14947d2651598e' })
  conversation_id!: string;

  @ApiProperty({ enum: ['inbound', 'outbound'] })
  direction!: MessageDirection;

  @ApiProperty({
    example: 'text',
    description:
      'text, template, image, document, audio, video, sticker, location, contacts, interactive, button, reaction, or what the channel sent',
  })
  type!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The text, caption, reply title or reaction emoji, where the type has one' })
  text!: string | null;

  @ApiProperty({ type: Object, nullable: true, description: 'The channel payload of types other than text' })
  content!: Record<string, unknown> | null;

  @ApiProperty({ type: String, nullable: true, description: "The customer's phone on inbound messages; null on outbound ones" })
  from!: string | null;

  @ApiProperty({ enum: ['received', 'queued', 'sent', 'delivered', 'read', 'failed'] })
  status!: MessageStatus;

  @ApiProperty({ type: String, nullable: true, description: "The channel's reason when status is failed" })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The user who sent an outbound message' })
  sent_by!: string | null;

  @ApiProperty({
    type: MessageMediaResponse,
    nullable: true,
    description: 'The media of an image, audio, video, document or sticker message (null for other types, and for media sent by link)',
  })
  media!: MessageMediaResponse | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /** `media` is the message's media as `MediaService.describe` answers it. */
  static of(message: MessageRow, customerPhone: string, media: MessageMediaResponse | null = null): MessageResponse {
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
      media,
      created_at: message.created_at.toISOString(),
    };
  }
}

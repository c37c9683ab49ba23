import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import { MAX_SEARCH_WORDS, searchWords } from '../common/search';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES, type MessageDirection, type MessageRow, type MessageStatus } from './message.entity';

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

export class MessageResponse {
  @ApiProperty({ example: 'msg_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ example: 'conv_01a2047c8e2078c99d14947d2651598e' })
  conversation_id!: string;

  @ApiProperty({ enum: MESSAGE_DIRECTIONS })
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

  @ApiProperty({ enum: MESSAGE_STATUSES })
  status!: MessageStatus;

  @ApiProperty({ type: String, nullable: true, description: "The channel's reason when status is failed" })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The user who sent an outbound message' })
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

@ValidatorConstraint({ name: 'searchWordCount' })
class SearchWordCount implements ValidatorConstraintInterface {
  validate(q: unknown): boolean {
    return typeof q === 'string' && searchWords(q).length <= MAX_SEARCH_WORDS;
  }

  defaultMessage(): string {
    return `q must have at most ${MAX_SEARCH_WORDS} words`;
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
}

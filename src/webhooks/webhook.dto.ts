import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsString, Length, MaxLength } from 'class-validator';
import { IsOmittable } from '../common/omittable';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import { WEBHOOK_EVENT_TYPES } from '../events/event-types';
import type { DeliveryRow, DeliveryStatus, WebhookRow } from './webhook.entity';

const SUBSCRIBABLE = ['*', ...WEBHOOK_EVENT_TYPES];

export class CreateWebhookDto {
  @ApiProperty({
    example: 'https://example.com/hooks/team-inbox',
    description: 'https; not a private, loopback, link-local or metadata address',
  })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiProperty({
    example: ['message.received', 'conversation.assigned'],
    description: `Event types, or ["*"] for all: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @IsIn(SUBSCRIBABLE, { each: true, message: `events must hold event types (${WEBHOOK_EVENT_TYPES.join(', ')}) or "*"` })
  events!: string[];

  @ApiProperty({ minLength: 16, maxLength: 256, writeOnly: true, description: 'Signs every delivery (Standard Webhooks); never returned' })
  @IsString()
  @Length(16, 256)
  secret!: string;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional()
  @IsOmittable()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @IsIn(SUBSCRIBABLE, { each: true, message: `events must hold event types (${WEBHOOK_EVENT_TYPES.join(', ')}) or "*"` })
  events?: string[];

  @ApiPropertyOptional({ minLength: 16, maxLength: 256, writeOnly: true })
  @IsOmittable()
  @IsString()
  @Length(16, 256)
  secret?: string;

  @ApiPropertyOptional({ description: 'true re-enables a registration disabled by a 410 or by hand' })
  @IsOmittable()
  @IsBoolean()
  active?: boolean;
}

export class WebhookResponse {
  @ApiProperty({ example: 'wh_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty({ type: [String] })
  events!: string[];

  @ApiProperty()
  active!: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'Why the service disabled it, e.g. the receiver answered 410 Gone' })
  disabled_reason!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(webhook: WebhookRow): WebhookResponse {
    return {
      id: toPublicId('wh', webhook.id),
      url: webhook.url,
      events: webhook.events,
      active: webhook.active,
      disabled_reason: webhook.disabled_reason,
      created_at: webhook.created_at.toISOString(),
      updated_at: webhook.updated_at.toISOString(),
    };
  }
}

export class ListDeliveriesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ['pending', 'succeeded', 'failed'] })
  @IsOmittable()
  @IsIn(['pending', 'succeeded', 'failed'])
  status?: DeliveryStatus;
}

export class DeliveryResponse {
  @ApiProperty({ example: 'dlv_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ example: 'evt_01a2047c8e2078c99d14947d2651598e', description: 'Also the webhook-id header of every attempt' })
  event_id!: string;

  @ApiProperty({ example: 'message.received' })
  event_type!: string;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] })
  status!: DeliveryStatus;

  @ApiProperty()
  attempts!: number;

  @ApiProperty({ type: Number, nullable: true })
  last_status_code!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'The first 500 characters of the last answer' })
  last_response!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last attempt failed without an answer (timeout, refused connection, unsafe address)',
  })
  last_error!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(delivery: DeliveryRow): DeliveryResponse {
    return {
      id: toPublicId('dlv', delivery.id),
      event_id: toPublicId('evt', delivery.event_id),
      event_type: delivery.event_type,
      status: delivery.status,
      attempts: delivery.attempts,
      last_status_code: delivery.last_status_code,
      last_response: delivery.last_response,
      last_error: delivery.last_error,
      next_attempt_at: delivery.status === 'pending' && delivery.next_attempt_at ? delivery.next_attempt_at.toISOString() : null,
      created_at: delivery.created_at.toISOString(),
      updated_at: delivery.updated_at.toISOString(),
    };
  }
}

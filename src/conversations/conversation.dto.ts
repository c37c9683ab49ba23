import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import { CONVERSATION_STATUSES, CUSTOMER_WINDOW_MS, type ConversationStatus, type ConversationWithCustomer } from './conversation.entity';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES, type MessageDirection, type MessageStatus } from './message.entity';

export class CustomerResponse {
  @ApiProperty({ description: "The contact's name, or the phone when the contact has none", example: 'Maria Lopez' })
  name!: string;

  @ApiProperty({ example: '+16315551234' })
  phone!: string;
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

export class ConversationResponse {
  @ApiProperty({ example: 'conv_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ enum: CONVERSATION_STATUSES })
  status!: ConversationStatus;

  @ApiProperty({ type: CustomerResponse })
  customer!: CustomerResponse;

  @ApiProperty({ type: String, nullable: true, example: 'user_01a2047c8e2078c99d14947d2651598e' })
  assigned_to!: string | null;

  @ApiProperty({ format: 'date-time' })
  last_message_at!: string;

  @ApiProperty({ type: LastMessageResponse, nullable: true, description: 'The newest message of the thread, for a preview' })
  last_message!: LastMessageResponse | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      "When the 24-hour window for free-form messages closes (24 hours after the customer's last message); null if the customer never wrote",
  })
  window_expires_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(row: ConversationWithCustomer): ConversationResponse {
    return {
      id: toPublicId('conv', row.id),
      status: row.status,
      customer: { name: row.customer_name ?? row.customer_phone, phone: row.customer_phone },
      assigned_to: row.assigned_to ? toPublicId('user', row.assigned_to) : null,
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
      window_expires_at: row.last_inbound_at ? new Date(row.last_inbound_at.getTime() + CUSTOMER_WINDOW_MS).toISOString() : null,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

export class ListConversationsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: CONVERSATION_STATUSES })
  @IsOptional()
  @IsIn(CONVERSATION_STATUSES)
  status?: ConversationStatus;

  @ApiPropertyOptional({ description: '`me`, `none` (unassigned) or a user id', example: 'me' })
  @IsOptional()
  @Matches(/^(me|none|user_[0-9a-f]{32})$/, { message: 'assigned_to must be me, none or a user id' })
  assigned_to?: string;

  @ApiPropertyOptional({ description: 'Part of the customer name or phone, case-insensitive' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 100)
  q?: string;
}

/** Both fields optional, at least one present; `assigned_to: null` unassigns. */
export class UpdateConversationDto {
  @ApiPropertyOptional({ enum: CONVERSATION_STATUSES, description: 'Closing and reopening are both allowed' })
  @IsOptional()
  @IsIn(CONVERSATION_STATUSES)
  status?: ConversationStatus;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'A user id, or null to unassign' })
  @ValidateIf((dto: UpdateConversationDto) => dto.assigned_to !== undefined && dto.assigned_to !== null)
  @IsString()
  assigned_to?: string | null;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import { CONVERSATION_STATUSES, type ConversationStatus, type ConversationWithCustomer } from './conversation.entity';

export class CustomerResponse {
  @ApiProperty({ description: "The contact's name, or the phone when the contact has none", example: 'Maria Lopez' })
  name!: string;

  @ApiProperty({ example: '+16315551234' })
  phone!: string;
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

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { IsOmittable } from '../common/omittable';
import { toPublicId } from '../common/ids';
import { PageQuery } from '../common/pagination';
import { NOTIFICATION_TYPES, type NotificationRow, type NotificationType } from './notification.entity';
import { booleanWord } from '../common/transforms';

export class ListNotificationsQuery extends PageQuery {
  @ApiPropertyOptional({ type: Boolean, description: '`true`: only the unread ones; `false` (or absent): all of them' })
  @IsOmittable()
  @Transform(booleanWord)
  @IsBoolean({ message: 'unread must be true or false' })
  unread?: boolean;
}

export class NotificationResponse {
  @ApiProperty({ example: 'ntf_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' })
  id!: string;

  @ApiProperty({ enum: NOTIFICATION_TYPES })
  type!: NotificationType;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'conv_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d',
    description: 'The conversation it is about, if any',
  })
  conversation_id!: string | null;

  @ApiProperty({ example: 'Ana Silva assigned you a conversation with +16315551234' })
  text!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the user first marked it read; null while unread' })
  read_at!: string | null;

  static of(notification: NotificationRow): NotificationResponse {
    return {
      id: toPublicId('ntf', notification.id),
      type: notification.type,
      conversation_id: notification.conversation_id === null ? null : toPublicId('conv', notification.conversation_id),
      text: notification.text,
      created_at: notification.created_at.toISOString(),
      read_at: notification.read_at === null ? null : notification.read_at.toISOString(),
    };
  }
}

export class UnreadCountResponse {
  @ApiProperty({ example: 3, description: "How many of the caller's notifications are unread" })
  unread!: number;
}

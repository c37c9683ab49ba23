import { Column, Entity, PrimaryColumn } from 'typeorm';

export type NotificationType = 'conversation.assigned' | 'message.received';
export const NOTIFICATION_TYPES: NotificationType[] = ['conversation.assigned', 'message.received'];

/** Something a user should look at; always the user's own (another user's is a 404). */
@Entity('notifications')
export class Notification {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'user_id' })
  userId!: string;

  @Column('text')
  type!: NotificationType;

  @Column('uuid', { name: 'conversation_id', nullable: true })
  conversationId!: string | null;

  @Column('text')
  text!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'read_at', nullable: true })
  readAt!: Date | null;
}

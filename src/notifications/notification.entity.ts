import { Column, Entity, PrimaryColumn } from 'typeorm';

export type NotificationType = 'conversation.assigned' | 'message.received';

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

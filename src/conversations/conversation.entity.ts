import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ConversationStatus = 'open' | 'closed';
export const CONVERSATION_STATUSES: ConversationStatus[] = ['open', 'closed'];

/** The one conversation of a contact (its customer). */
@Entity('conversations')
export class Conversation {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'contact_id' })
  contactId!: string;

  @Column('text')
  status!: ConversationStatus;

  @Column('uuid', { name: 'assigned_to', nullable: true })
  assignedTo!: string | null;

  @Column('timestamptz', { name: 'last_message_at' })
  lastMessageAt!: Date;

  /** The channel's timestamp of the customer's last message: the 24-hour window counts from it. */
  @Column('timestamptz', { name: 'last_inbound_at', nullable: true })
  lastInboundAt!: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}

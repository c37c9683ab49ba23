import { Column, Entity, PrimaryColumn } from 'typeorm';

export type MessageDirection = 'inbound' | 'outbound';
/** Inbound messages are `received`; outbound ones move queued -> sent -> delivered -> read, or to failed. */
export type MessageStatus = 'received' | 'queued' | 'sent' | 'delivered' | 'read' | 'failed';

@Entity('messages')
export class Message {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'conversation_id' })
  conversationId!: string;

  @Column('text')
  direction!: MessageDirection;

  @Column('text')
  type!: string;

  /** The text of a text message, or the caption, title or emoji of other types that have one. */
  @Column('text', { nullable: true })
  text!: string | null;

  /** The channel payload of the type (`image`, `template`, `location`, …), as the Graph API shapes it. */
  @Column('jsonb', { nullable: true })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM types jsonb inserts only through any-valued records
  content!: Record<string, any> | null;

  @Column('text')
  status!: MessageStatus;

  @Column('text', { nullable: true })
  error!: string | null;

  @Column('text', { name: 'channel_message_id', nullable: true })
  channelMessageId!: string | null;

  @Column('uuid', { name: 'sent_by', nullable: true })
  sentBy!: string | null;

  @Column('text', { name: 'idempotency_key', nullable: true })
  idempotencyKey!: string | null;

  @Column('text', { name: 'request_hash', nullable: true })
  requestHash!: string | null;

  @Column('timestamptz', { name: 'channel_timestamp', nullable: true })
  channelTimestamp!: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}

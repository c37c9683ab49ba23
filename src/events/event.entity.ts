import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventType } from './event-types';

/** One row of the outbox: a domain change, recorded in the transaction that made it. */
@Entity('events')
export class DomainEvent {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  type!: EventType;

  @Column('jsonb')
  data!: Record<string, unknown>;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  /** When the relay handed it on to deliveries; null while pending. */
  @Column('timestamptz', { name: 'relayed_at', nullable: true })
  relayedAt!: Date | null;
}

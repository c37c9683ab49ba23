import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A receiver registered for some event types (or `*`). */
@Entity('webhooks')
export class Webhook {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  url!: string;

  @Column('text', { array: true })
  events!: string[];

  /** Signs deliveries; never returned by the API. */
  @Column('text')
  secret!: string;

  @Column('boolean')
  active!: boolean;

  /** Why the service disabled it (a 410 from the receiver); null when enabled or disabled by hand. */
  @Column('text', { name: 'disabled_reason', nullable: true })
  disabledReason!: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event for one registration, and its attempts so far. */
@Entity('webhook_deliveries')
export class WebhookDelivery {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'webhook_id' })
  webhookId!: string;

  @Column('uuid', { name: 'event_id' })
  eventId!: string;

  @Column('text')
  status!: DeliveryStatus;

  @Column('integer')
  attempts!: number;

  @Column('integer', { name: 'last_status_code', nullable: true })
  lastStatusCode!: number | null;

  @Column('text', { name: 'last_response', nullable: true })
  lastResponse!: string | null;

  @Column('text', { name: 'last_error', nullable: true })
  lastError!: string | null;

  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt!: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}

import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhooksService } from '../webhooks/webhooks.service';
import { DomainEvent } from './event.entity';
import { EventStream } from './event-stream';
import { toEnvelope } from './events.service';

const BATCH = 200;
const POLL_EVERY_MS = 100;

/**
 * Hands committed events on: a delivery per subscribed registration, written in the same
 * transaction that marks the events relayed, then queued; and the live stream. Rows are claimed
 * with FOR UPDATE SKIP LOCKED, so replicas share the outbox and each event is relayed once; an
 * event committed before a crash is still unrelayed after it, and goes out on restart.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(EventRelay.name);
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly webhooks: WebhooksService,
    private readonly stream: EventStream,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Relays everything pending now; answers how many events it relayed. */
  async relayPending(): Promise<number> {
    let total = 0;
    for (;;) {
      const relayed = await this.relayBatch();
      total += relayed;
      if (relayed < BATCH) return total;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.relayPending()
        .catch((error: unknown) => this.logger.warn(`Relay failed, retrying: ${(error as Error).message}`))
        .then(() => this.schedule(POLL_EVERY_MS));
    }, delayMs);
  }

  private async relayBatch(): Promise<number> {
    const { events, deliveryIds } = await this.dataSource.transaction(async (manager) => {
      const rows: { id: string; type: DomainEvent['type']; data: Record<string, unknown>; created_at: Date }[] = await manager.query(
        'SELECT id, type, data, created_at FROM events WHERE relayed_at IS NULL ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED',
        [BATCH],
      );
      const claimed = rows.map((row) => Object.assign(new DomainEvent(), { id: row.id, type: row.type, data: row.data, createdAt: row.created_at, relayedAt: null }));
      const ids = await this.webhooks.createDeliveries(manager, claimed);
      if (claimed.length > 0) await manager.query('UPDATE events SET relayed_at = now() WHERE id = ANY($1::uuid[])', [claimed.map((e) => e.id)]);
      return { events: claimed, deliveryIds: ids };
    });
    if (events.length === 0) return 0;
    // After the commit: a crash here leaves pending deliveries that the delivery processor re-queues.
    for (const id of deliveryIds) await this.webhooks.enqueue(id, 0, 0);
    await this.stream.publish(events.map(toEnvelope)).catch((error: unknown) => this.logger.warn(`Live stream publish failed: ${(error as Error).message}`));
    return events.length;
  }
}

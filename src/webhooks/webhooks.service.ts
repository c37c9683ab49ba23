import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newUuid } from '../common/ids';
import { decodeCursor, Page, PageQuery, toPage } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import type { DomainEvent } from '../events/event.entity';
import { JobQueue } from '../queue/job-queue';
import { assertDeliverableUrl, UnsafeUrlError } from './url-guard';
import { CreateWebhookDto, DeliveryResponse, ListDeliveriesQuery, UpdateWebhookDto, WebhookResponse } from './webhook.dto';
import { Webhook, WebhookDelivery } from './webhook.entity';

/** What one attempt to deliver needs, claimed so that no other worker attempts it meanwhile. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  webhook: { id: string; url: string; secret: string; active: boolean };
  event: { id: string; type: string; data: Record<string, unknown>; createdAt: Date };
}

/** A delivery with its event's type, as DeliveryResponse.of reads it; alias d, events e. */
const DELIVERY_SELECT = `SELECT d.id, d.event_id AS "eventId", e.type AS "eventType", d.status, d.attempts, d.last_status_code AS "lastStatusCode",
  d.last_response AS "lastResponse", d.last_error AS "lastError", d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt", d.updated_at AS "updatedAt"
  FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`;

interface ClaimRow {
  id: string;
  attempts: number;
  webhook_id: string;
  url: string;
  secret: string;
  active: boolean;
  event_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export type AttemptOutcome =
  | { result: 'succeeded'; statusCode: number; response: string }
  | { result: 'gone'; statusCode: number; response: string }
  | { result: 'retry'; statusCode: number | null; response: string | null; error: string | null; nextAttemptAt: Date }
  | { result: 'failed'; statusCode: number | null; response: string | null; error: string | null };

@Injectable()
export class WebhooksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly queue: JobQueue,
  ) {}

  async create(dto: CreateWebhookDto): Promise<WebhookResponse> {
    const url = await this.checkUrl(dto.url);
    const now = new Date();
    const webhook = this.dataSource.getRepository(Webhook).create({
      id: newUuid(now.getTime()),
      url,
      events: normaliseEvents(dto.events),
      secret: dto.secret,
      active: true,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    });
    await this.dataSource.getRepository(Webhook).insert(webhook);
    return WebhookResponse.of(webhook);
  }

  async list(query: PageQuery): Promise<Page<WebhookResponse>> {
    const builder = this.dataSource.getRepository(Webhook).createQueryBuilder('w').orderBy('w.created_at', 'DESC').addOrderBy('w.id', 'DESC').limit(query.limit + 1);
    if (query.cursor) {
      const [createdAt, id] = decodeCursor(query.cursor, ['timestamp', 'uuid']);
      builder.where('(w.created_at, w.id) < (:createdAt, :id)', { createdAt, id });
    }
    const rows = await builder.getMany();
    return toPage(rows, query.limit, (w) => [w.createdAt.toISOString(), w.id], WebhookResponse.of);
  }

  async get(id: string): Promise<WebhookResponse> {
    return WebhookResponse.of(await this.find(id));
  }

  async update(id: string, dto: UpdateWebhookDto): Promise<WebhookResponse> {
    if (Object.values(dto).every((value) => value === undefined)) throw new BadRequestException('Body must set at least one of url, events, secret, active');
    const webhook = await this.find(id);
    if (dto.url !== undefined) webhook.url = await this.checkUrl(dto.url);
    if (dto.events !== undefined) webhook.events = normaliseEvents(dto.events);
    if (dto.secret !== undefined) webhook.secret = dto.secret;
    if (dto.active !== undefined) {
      webhook.active = dto.active;
      webhook.disabledReason = null;
    }
    webhook.updatedAt = new Date();
    await this.dataSource.getRepository(Webhook).save(webhook);
    return WebhookResponse.of(webhook);
  }

  async remove(id: string): Promise<void> {
    const { affected } = await this.dataSource.getRepository(Webhook).delete({ id });
    if (!affected) throw new NotFoundException('Webhook not found');
  }

  /** The attempt log of one registration, newest first. */
  async listDeliveries(webhookId: string, query: ListDeliveriesQuery): Promise<Page<DeliveryResponse>> {
    await this.find(webhookId);
    const params: unknown[] = [webhookId];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where = ['d.webhook_id = $1'];
    if (query.status) where.push(`d.status = ${param(query.status)}`);
    if (query.cursor) {
      const [createdAt, id] = decodeCursor(query.cursor, ['timestamp', 'uuid']);
      where.push(`(d.created_at, d.id) < (${param(createdAt)}, ${param(id)})`);
    }
    const rows: (WebhookDelivery & { eventType: string })[] = await this.dataSource.query(
      `${DELIVERY_SELECT}
       WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.id DESC LIMIT ${param(query.limit + 1)}`,
      params,
    );
    return toPage(rows, query.limit, (d) => [d.createdAt.toISOString(), d.id], DeliveryResponse.of);
  }

  /** Schedules one more attempt now, whatever the delivery's state; answers it. */
  async retryDelivery(webhookId: string, deliveryId: string): Promise<DeliveryResponse> {
    const [rows]: [{ id: string }[], number] = await this.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now() WHERE id = $1 AND webhook_id = $2 RETURNING id`,
      [deliveryId, webhookId],
    );
    if (!rows[0]) throw new NotFoundException('Delivery not found');
    await this.enqueue(deliveryId, `manual-${Date.now()}`, 0);
    return this.deliveryById(webhookId, deliveryId);
  }

  /**
   * The outbox relay's part, inside its transaction: one pending delivery per (event, active
   * registration subscribed to its type). A repeat for the same pair is a no-op. Answers the ids.
   */
  async createDeliveries(manager: EntityManager, events: DomainEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const webhooks: { id: string; events: string[] }[] = await manager.query('SELECT id, events FROM webhooks WHERE active');
    const pairs = events.flatMap((event) => webhooks.filter((w) => w.events.includes('*') || w.events.includes(event.type)).map((w) => [w.id, event.id]));
    if (pairs.length === 0) return [];
    const now = new Date();
    const inserted: { id: string }[] = await manager.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
       SELECT d.id, d.webhook_id, d.event_id, 'pending', 0, $4, $4, $4 FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS d (id, webhook_id, event_id)
       ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`,
      [pairs.map(() => newUuid(now.getTime())), pairs.map(([webhookId]) => webhookId), pairs.map(([, eventId]) => eventId), now],
    );
    return inserted.map((row) => row.id);
  }

  /** Hands a delivery to the queue; the job id makes a repeat of the same attempt harmless. */
  async enqueue(deliveryId: string, attemptKey: string | number, delayMs: number): Promise<void> {
    await this.queue.add('webhook.deliver', { deliveryId }, `${deliveryId}:${attemptKey}`, delayMs);
  }

  /** Pending deliveries whose time has come and gone by `overdueMs`: their job was lost (a crash). */
  async overdueDeliveries(overdueMs: number): Promise<{ id: string; attempts: number; nextAttemptAt: Date }[]> {
    return this.dataSource.query(
      `SELECT id, attempts, next_attempt_at AS "nextAttemptAt" FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT 1000`,
      [new Date(Date.now() - overdueMs)],
    );
  }

  /**
   * Takes a due delivery for one attempt: counts the attempt and pushes next_attempt_at past the
   * attempt's longest duration, so another worker (a duplicate job, another replica) skips it.
   */
  async claim(deliveryId: string, leaseMs: number): Promise<ClaimedDelivery | null> {
    // One round trip: the claim and what the attempt needs (registration, event) together.
    const [rows]: [ClaimRow[], number] = await this.dataSource.query(
      `UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond', updated_at = now()
       FROM webhooks w, events e
       WHERE d.id = $1 AND d.status = 'pending' AND d.next_attempt_at <= now() + interval '1 second' AND w.id = d.webhook_id AND e.id = d.event_id
       RETURNING d.id, d.attempts, w.id AS webhook_id, w.url, w.secret, w.active, e.id AS event_id, e.type, e.data, e.created_at`,
      [deliveryId, leaseMs],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      attempts: row.attempts,
      webhook: { id: row.webhook_id, url: row.url, secret: row.secret, active: row.active },
      event: { id: row.event_id, type: row.type, data: row.data, createdAt: row.created_at },
    };
  }

  /** Records how an attempt went; a 410 also disables the registration. */
  async recordAttempt(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const status = outcome.result === 'succeeded' ? 'succeeded' : outcome.result === 'retry' ? 'pending' : 'failed';
    const record = (manager: EntityManager) =>
      manager.query(
        `UPDATE webhook_deliveries SET status = $2, last_status_code = $3, last_response = $4, last_error = $5, next_attempt_at = $6, updated_at = now() WHERE id = $1`,
        [delivery.id, status, outcome.statusCode, outcome.response, 'error' in outcome ? outcome.error : null, outcome.result === 'retry' ? outcome.nextAttemptAt : null],
      );
    if (outcome.result !== 'gone') {
      await record(this.dataSource.manager);
      return;
    }
    await this.dataSource.transaction(async (manager) => {
      await record(manager);
      await manager.query(`UPDATE webhooks SET active = false, disabled_reason = $2, updated_at = now() WHERE id = $1`, [delivery.webhook.id, 'The receiver answered 410 Gone']);
    });
  }

  private async deliveryById(webhookId: string, deliveryId: string): Promise<DeliveryResponse> {
    const rows: (WebhookDelivery & { eventType: string })[] = await this.dataSource.query(
      `${DELIVERY_SELECT} WHERE d.id = $1 AND d.webhook_id = $2`,
      [deliveryId, webhookId],
    );
    if (!rows[0]) throw new NotFoundException('Delivery not found');
    return DeliveryResponse.of(rows[0]);
  }

  private async find(id: string): Promise<Webhook> {
    const webhook = await this.dataSource.getRepository(Webhook).findOneBy({ id });
    if (!webhook) throw new NotFoundException('Webhook not found');
    return webhook;
  }

  private async checkUrl(raw: string): Promise<string> {
    try {
      return (await assertDeliverableUrl(raw, this.config.webhookAllowPrivateUrls)).toString();
    } catch (error) {
      if (error instanceof UnsafeUrlError) throw new BadRequestException(error.message);
      throw error;
    }
  }
}

/** `*` stands alone; types are kept once each, in a stable order. */
function normaliseEvents(events: string[]): string[] {
  if (events.includes('*')) {
    if (events.length > 1) throw new BadRequestException('events must be ["*"] alone or a list of event types');
    return ['*'];
  }
  return [...new Set(events)].sort();
}

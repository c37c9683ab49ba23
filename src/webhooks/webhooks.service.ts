import { BadRequestException, Injectable, Logger, NotFoundException, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import { Batcher } from '../common/batcher';
import { newUuid, toPublicId } from '../common/ids';
import { mapPage, Page, PageQuery } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import { SecretBox, SecretUnreadableError } from '../config/secret-box';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import type { EventRow } from '../events/event.entity';
import { OutboxRelay } from '../events/outbox-relay';
import { RetentionService } from '../events/retention.service';
import { AttemptRecord, ClaimedDeliveryRow, DeliveryRepository } from './delivery.repository';
import { assertDeliverableUrl, UnsafeUrlError } from './url-guard';
import { CreateWebhookDto, DeliveryResponse, ListDeliveriesQuery, UpdateWebhookDto, WebhookResponse } from './webhook.dto';
import type { WebhookRow } from './webhook.entity';
import { WebhookRepository } from './webhook.repository';

/** How an attempt ended, for the delivery's record. */
export type AttemptOutcome =
  | { result: 'succeeded'; statusCode: number; response: string }
  | { result: 'gone'; statusCode: number; response: string }
  | { result: 'retry'; statusCode: number | null; response: string | null; error: string | null; nextAttemptAt: Date }
  | { result: 'failed'; statusCode: number | null; response: string | null; error: string | null };

/** Records of concurrent delivery attempts share statements: up to 100 a statement, two statements at once. */
const RECORD_BATCH = { maxBatch: 100, concurrency: 2 };

/** Registrations whose secret is re-encrypted per transaction at start-up. */
const RESEAL_BATCH = 100;

@Injectable()
export class WebhooksService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(WebhooksService.name);

  private readonly records = new Batcher<{ id: string; record: AttemptRecord }, void>(async (attempts) => {
    await this.deliveries.recordAttempts(this.database.db, attempts);
    return attempts.map(() => undefined);
  }, RECORD_BATCH);

  constructor(
    private readonly database: Database,
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly relay: OutboxRelay,
    private readonly config: AppConfig,
    private readonly secrets: SecretBox,
    private readonly retention: RetentionService,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * Every relayed event gets its deliveries in the relay's own transaction. Finished deliveries
   * are pruned after EVENT_RETENTION, and an event is kept while a delivery refers to it.
   */
  onModuleInit(): void {
    this.relay.addConsumer({ record: (db, events) => this.createDeliveries(db, events) });
    this.retention.register({
      prune: (db, before, limit) => this.deliveries.pruneFinished(db, before, limit),
      eventsInUse: (db, eventIds) => this.deliveries.eventsWithDeliveries(db, eventIds),
    });
  }

  /** Before serving: every stored secret encrypted with the current key. */
  async onApplicationBootstrap(): Promise<void> {
    await this.resealSecrets();
  }

  /**
   * Rewrites every stored secret that is not encrypted with the current ENCRYPTION_KEY: plain
   * text from before encryption, or a value of a previous key. Idempotent, and safe with replicas
   * starting together: each batch is locked in its own transaction and rows another replica holds
   * are skipped. A value no configured key opens is left as it is and logged (its deliveries fail
   * until the key is configured again or the secret is set anew). Answers what it did.
   */
  async resealSecrets(): Promise<{ resealed: number; unreadable: number }> {
    let resealed = 0;
    let unreadable = 0;
    let afterId: string | null = null;
    for (;;) {
      const batch = await this.database.transaction(async (db) => {
        const rows = await this.webhooks.secretsToReseal(db, this.secrets.currentPrefix, afterId, RESEAL_BATCH);
        for (const row of rows) {
          try {
            await this.webhooks.setSecret(db, row.id, this.secrets.reseal(row.secret));
            resealed += 1;
          } catch (error) {
            if (!(error instanceof SecretUnreadableError)) throw error;
            unreadable += 1;
            this.logger.error(`Webhook ${toPublicId('wh', row.id)}: ${unreadableSecretReason(error)}`);
          }
        }
        return rows;
      });
      if (batch.length < RESEAL_BATCH) break;
      afterId = batch[batch.length - 1].id;
    }
    if (resealed > 0) this.logger.log(`Re-encrypted ${resealed} webhook secret(s) with key ${this.secrets.currentKeyId}`);
    return { resealed, unreadable };
  }

  async create(dto: CreateWebhookDto): Promise<WebhookResponse> {
    const url = await this.checkUrl(dto.url);
    const now = new Date();
    const webhook: WebhookRow = {
      id: newUuid(now.getTime()),
      url,
      events: normaliseEvents(dto.events),
      secret: this.secrets.seal(dto.secret),
      active: true,
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    };
    await this.database.transaction(async (db) => {
      await this.webhooks.insert(db, webhook);
      await this.audit.record(db, 'webhook.created', {
        target: toPublicId('wh', webhook.id),
        details: { origin: new URL(url).origin, events: webhook.events },
      });
    });
    return WebhookResponse.of(webhook);
  }

  async list(query: PageQuery): Promise<Page<WebhookResponse>> {
    return mapPage(await this.webhooks.list(this.database.db, query), WebhookResponse.of);
  }

  async get(id: string): Promise<WebhookResponse> {
    return WebhookResponse.of(await this.find(id));
  }

  async update(id: string, dto: UpdateWebhookDto): Promise<WebhookResponse> {
    if (Object.values(dto).every((value) => value === undefined))
      throw new BadRequestException('Body must set at least one of url, events, secret, active');
    const webhook = await this.find(id);
    if (dto.url !== undefined) webhook.url = await this.checkUrl(dto.url);
    if (dto.events !== undefined) webhook.events = normaliseEvents(dto.events);
    const secret = dto.secret === undefined ? null : this.secrets.seal(dto.secret);
    if (dto.active !== undefined) {
      webhook.active = dto.active;
      webhook.disabled_reason = null;
    }
    webhook.updated_at = new Date();
    await this.database.transaction(async (db) => {
      await this.webhooks.update(db, webhook, secret);
      await this.audit.record(db, 'webhook.updated', {
        target: toPublicId('wh', webhook.id),
        details: { changed: Object.keys(dto).filter((key) => dto[key as keyof UpdateWebhookDto] !== undefined) },
      });
    });
    return WebhookResponse.of(webhook);
  }

  async remove(id: string): Promise<void> {
    await this.database.transaction(async (db) => {
      if (!(await this.webhooks.delete(db, id))) throw new NotFoundException('Webhook not found');
      await this.audit.record(db, 'webhook.deleted', { target: toPublicId('wh', id) });
    });
  }

  /** The attempt log of one registration, newest first. */
  async listDeliveries(webhookId: string, query: ListDeliveriesQuery): Promise<Page<DeliveryResponse>> {
    await this.find(webhookId);
    return mapPage(await this.deliveries.list(this.database.db, webhookId, query.status, query), DeliveryResponse.of);
  }

  /** Makes a delivery due now, whatever its state, and wakes the relay; answers it. */
  async retryDelivery(webhookId: string, deliveryId: string): Promise<DeliveryResponse> {
    if (!(await this.deliveries.makeDue(this.database.db, webhookId, deliveryId))) throw new NotFoundException('Delivery not found');
    const delivery = await this.deliveries.find(this.database.db, webhookId, deliveryId);
    if (!delivery) throw new NotFoundException('Delivery not found');
    return DeliveryResponse.of(delivery);
  }

  /**
   * The relay's part, inside its transaction: one due delivery per (event, active registration
   * subscribed to its type). An event for one user only (a notification) is never delivered.
   */
  async createDeliveries(db: Db, events: EventRow[]): Promise<void> {
    const webhooks = await this.webhooks.active(db);
    const now = new Date();
    const deliveries = events
      .filter((event) => event.audience === null)
      .flatMap((event) =>
        webhooks
          .filter((webhook) => webhook.events.includes('*') || webhook.events.includes(event.type))
          .map((webhook) => ({ id: newUuid(now.getTime()), webhook_id: webhook.id, event_id: event.id })),
      );
    await this.deliveries.insertPending(db, deliveries, now);
  }

  /** The registration's secret of a claimed delivery, decrypted; throws, having logged it, when no configured key opens it. */
  secretOf(delivery: ClaimedDeliveryRow): string {
    try {
      return this.secrets.open(delivery.webhook_secret);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      const reason = unreadableSecretReason(error);
      this.logger.error(`Webhook ${toPublicId('wh', delivery.webhook_id)}: ${reason}`);
      throw new UnreadableSecretError(reason);
    }
  }

  /** Records how an attempt went, with concurrent ones in one statement; a 410 also disables the registration. */
  async recordAttempt(delivery: Pick<ClaimedDeliveryRow, 'id' | 'webhook_id'>, outcome: AttemptOutcome): Promise<void> {
    const record: AttemptRecord = {
      status: outcome.result === 'succeeded' ? 'succeeded' : outcome.result === 'retry' ? 'pending' : 'failed',
      last_status_code: outcome.statusCode,
      last_response: outcome.response,
      last_error: 'error' in outcome ? outcome.error : null,
      next_attempt_at: outcome.result === 'retry' ? outcome.nextAttemptAt : null,
    };
    if (outcome.result !== 'gone') {
      await this.records.run({ id: delivery.id, record });
      return;
    }
    await this.database.transaction(async (db) => {
      await this.deliveries.recordAttempts(db, [{ id: delivery.id, record }]);
      await this.webhooks.disable(db, delivery.webhook_id, 'The receiver answered 410 Gone');
    });
  }

  private async find(id: string): Promise<WebhookRow> {
    const webhook = await this.webhooks.find(this.database.db, id);
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

/** A registration's secret no configured key opens: nothing is sent unsigned. */
export class UnreadableSecretError extends Error {}

function unreadableSecretReason(error: SecretUnreadableError): string {
  return (
    `The webhook secret cannot be decrypted: ${error.message}. ` +
    'Add that key to ENCRYPTION_KEY_PREVIOUS, or set a new secret with PATCH /api/v1/webhooks/:id'
  );
}

/** `*` stands alone; types are kept once each, in a stable order. */
function normaliseEvents(events: string[]): string[] {
  if (events.includes('*')) {
    if (events.length > 1) throw new BadRequestException('events must be ["*"] alone or a list of event types');
    return ['*'];
  }
  return [...new Set(events)].sort();
}

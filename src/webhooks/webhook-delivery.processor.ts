import { BeforeApplicationShutdown, Injectable, OnModuleInit } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { parseRetryAfter } from '../common/retry-after';
import { AppConfig } from '../config/app-config';
import { toEnvelope } from '../events/event-envelope';
import { OutboxRelay } from '../events/outbox-relay';
import { JobQueue, retryDelay, WorkItem } from '../queue/job-queue';
import { assertDeliverableUrl, lookupFor, UnsafeUrlError } from './url-guard';
import { signDelivery } from './webhook-signature';
import { AttemptOutcome, ClaimedDelivery, WebhooksService } from './webhooks.service';
import { Metrics } from '../metrics/metrics';

/** Deliveries one instance attempts at once: they wait on receivers, not on CPU. */
const CONCURRENCY = 200;
const RESPONSE_EXCERPT = 500;

interface ReceiverAnswer {
  statusCode: number;
  excerpt: string;
  retryAfterMs: number | null;
}

/**
 * Delivers one event to one registration per job: the seed's envelope as body, signed with the
 * Standard Webhooks headers, done on a 2xx within WEBHOOK_TIMEOUT_MS. Anything else is tried
 * again on WEBHOOK_RETRY_SCHEDULE (a 429/503's Retry-After respected), 410 disables the
 * registration, and after the last attempt the delivery is failed. The delivery row is the truth:
 * the relay hands each due attempt on, and the claim on the row for that attempt keeps one
 * attempt at a time.
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnModuleInit, BeforeApplicationShutdown {
  private readonly agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

  constructor(
    private readonly queue: JobQueue,
    private readonly relay: OutboxRelay,
    private readonly webhooks: WebhooksService,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.queue.register('webhook.deliver', { concurrency: CONCURRENCY, handle: (work) => this.attempt(work) });
    this.relay.addWorkSource({
      job: 'webhook.deliver',
      claimDue: (db, limit, leaseMs) => this.webhooks.claimDue(db, limit, leaseMs),
      releaseAbandoned: (db) => this.webhooks.releaseAbandoned(db),
    });
  }

  beforeApplicationShutdown(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  async attempt(work: WorkItem): Promise<void> {
    const delivery = await this.webhooks.claimAttempt(work);
    if (!delivery) return;
    const outcome = await this.deliver(delivery);
    await this.webhooks.recordAttempt(delivery, outcome);
    this.observe(delivery, outcome);
  }

  /** Each attempt by outcome; for a delivery that ended, the time since its event was recorded. */
  private observe(delivery: ClaimedDelivery, outcome: AttemptOutcome): void {
    const ended = outcome.result === 'succeeded' ? 'delivered' : outcome.result === 'retry' ? null : 'failed';
    this.metrics.webhookDeliveryAttempts.inc({ outcome: ended ?? 'retry' });
    if (ended) this.metrics.webhookDelivery.observe({ outcome: ended }, (Date.now() - delivery.event_created_at.getTime()) / 1000);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    if (!delivery.webhook_active) return { result: 'failed', statusCode: null, response: null, error: 'The registration is disabled' };
    // Nothing is sent unsigned: retried on the schedule, so configuring the key again in time saves the delivery.
    if (delivery.secret === null) return this.afterFailure(delivery, null, null, delivery.unreadableSecret, null);
    const envelope = toEnvelope({
      id: delivery.event_id,
      type: delivery.event_type,
      data: delivery.event_data,
      created_at: delivery.event_created_at,
    });
    const eventId = envelope.id;
    const body = JSON.stringify(envelope);
    const timestamp = Math.floor(Date.now() / 1000);
    let answer: ReceiverAnswer;
    try {
      // Checked again at every attempt: the host may resolve elsewhere since registration.
      const url = await assertDeliverableUrl(delivery.webhook_url, this.config.webhookAllowPrivateUrls);
      answer = await this.post(url, body, {
        'content-type': 'application/json',
        'user-agent': 'TeamInbox-Webhooks/1',
        'webhook-id': eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signDelivery(delivery.secret, eventId, timestamp, body),
      });
    } catch (error) {
      const message = error instanceof UnsafeUrlError ? error.message : `The receiver could not be reached: ${(error as Error).message}`;
      return this.afterFailure(delivery, null, null, message, null);
    }
    if (answer.statusCode >= 200 && answer.statusCode < 300)
      return { result: 'succeeded', statusCode: answer.statusCode, response: answer.excerpt };
    if (answer.statusCode === 410) return { result: 'gone', statusCode: 410, response: answer.excerpt };
    return this.afterFailure(delivery, answer.statusCode, answer.excerpt, null, answer.retryAfterMs);
  }

  private afterFailure(
    delivery: ClaimedDelivery,
    statusCode: number | null,
    response: string | null,
    error: string | null,
    retryAfterMs: number | null,
  ): AttemptOutcome {
    const schedule = this.config.webhookRetryScheduleMs;
    if (delivery.attempts > schedule.length) return { result: 'failed', statusCode, response, error };
    const delay = retryDelay(schedule, delivery.attempts, retryAfterMs ?? 0);
    return { result: 'retry', statusCode, response, error, nextAttemptAt: new Date(Date.now() + delay) };
  }

  /** POSTs with a hard deadline; only the first bytes of the answer are kept. */
  private post(url: URL, body: string, headers: Record<string, string>, timeoutMs = this.config.webhookTimeoutMs): Promise<ReceiverAnswer> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
          agent: this.agents[url.protocol as 'http:' | 'https:'],
          lookup: lookupFor(this.config.webhookAllowPrivateUrls),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size < RESPONSE_EXCERPT) chunks.push(chunk);
            size += chunk.length;
          });
          response.on('end', () => {
            clearTimeout(deadline);
            resolve({
              statusCode: response.statusCode ?? 0,
              excerpt: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT),
              retryAfterMs:
                response.statusCode === 429 || response.statusCode === 503 ? parseRetryAfter(response.headers['retry-after']) : null,
            });
          });
          response.on('error', reject);
        },
      );
      const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      request.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      request.end(body);
    });
  }
}

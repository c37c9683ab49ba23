import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { parseRetryAfter } from '../common/retry-after';
import { AppConfig } from '../config/app-config';
import { toEnvelope } from '../events/event-envelope';
import { Metrics } from '../metrics/metrics';
import { RecordedWork } from '../recorded-work/recorded-work';
import { onSchedule, type WorkFailure } from '../recorded-work/work-kind';
import { ClaimedDeliveryRow, DELIVERY_WORK } from './delivery.repository';
import { assertDeliverableUrl, lookupFor, UnsafeUrlError } from './url-guard';
import { signDelivery } from './webhook-signature';
import { AttemptOutcome, UnreadableSecretError, WebhooksService } from './webhooks.service';

/** Deliveries one instance attempts at once: they wait on receivers, not on CPU. */
const CONCURRENCY = 200;
const RESPONSE_EXCERPT = 500;
/** An attempt's claim outlives its longest duration (WEBHOOK_TIMEOUT_MS) by this much. */
const ATTEMPT_LEASE_MARGIN_MS = 5_000;

interface ReceiverAnswer {
  statusCode: number;
  excerpt: string;
  retryAfterMs: number | null;
}

/** How a failed attempt is recorded: the receiver's answer, if any, or why there was none. */
interface DeliveryFailure extends WorkFailure {
  statusCode: number | null;
  response: string | null;
  error: string | null;
  /** The receiver answered 410: the registration is disabled. */
  gone?: boolean;
}

/** An attempt that did not end in a 2xx. */
class DeliveryFailed extends Error {
  constructor(readonly failure: DeliveryFailure) {
    super(failure.reason);
  }
}

/**
 * Delivers one event to one registration per attempt, as recorded work (the delivery row): the
 * seed's envelope as body, signed with the Standard Webhooks headers, done on a 2xx within
 * WEBHOOK_TIMEOUT_MS. Anything else is tried again on WEBHOOK_RETRY_SCHEDULE (a 429/503's
 * Retry-After respected), 410 disables the registration, and after the last attempt the delivery
 * is failed. Claims (by the engine) and records of concurrent attempts share statements.
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnModuleInit, OnApplicationShutdown {
  private readonly agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

  constructor(
    private readonly work: RecordedWork,
    private readonly webhooks: WebhooksService,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.work.register<ClaimedDeliveryRow, DeliveryFailure>({
      job: 'webhook.deliver',
      ...DELIVERY_WORK,
      leaseMs: this.config.webhookTimeoutMs + ATTEMPT_LEASE_MARGIN_MS,
      concurrency: CONCURRENCY,
      attempt: async (delivery) => {
        const answer = await this.deliver(delivery);
        await this.record(delivery, { result: 'succeeded', statusCode: answer.statusCode, response: answer.excerpt });
      },
      failure: (error) => (error instanceof DeliveryFailed ? error : failed({ error: (error as Error).message })).failure,
      nextAttemptInMs: onSchedule(() => this.config.webhookRetryScheduleMs),
      retry: (delivery, nextAttemptAt, failure) => this.record(delivery, { result: 'retry', ...this.answerOf(failure), nextAttemptAt }),
      fail: (delivery, failure) =>
        failure.gone
          ? this.record(delivery, { result: 'gone', statusCode: 410, response: failure.response ?? '' })
          : this.record(delivery, { result: 'failed', ...this.answerOf(failure) }),
    });
  }

  /** After the queue has let the attempts running here finish (its before-shutdown hook): none loses its connection. */
  onApplicationShutdown(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  private answerOf(failure: DeliveryFailure): { statusCode: number | null; response: string | null; error: string | null } {
    return { statusCode: failure.statusCode, response: failure.response, error: failure.error };
  }

  private async record(delivery: ClaimedDeliveryRow, outcome: AttemptOutcome): Promise<void> {
    await this.webhooks.recordAttempt(delivery, outcome);
    this.observe(delivery, outcome);
  }

  /** Each attempt by outcome; for a delivery that ended, the time since its event was recorded. */
  private observe(delivery: ClaimedDeliveryRow, outcome: AttemptOutcome): void {
    const ended = outcome.result === 'succeeded' ? 'delivered' : outcome.result === 'retry' ? null : 'failed';
    this.metrics.webhookDeliveryAttempts.inc({ outcome: ended ?? 'retry' });
    if (ended) this.metrics.webhookDelivery.observe({ outcome: ended }, (Date.now() - delivery.event_created_at.getTime()) / 1000);
  }

  /** The receiver's 2xx answer; throws DeliveryFailed for anything else. */
  private async deliver(delivery: ClaimedDeliveryRow): Promise<ReceiverAnswer> {
    if (!delivery.webhook_active) throw failed({ error: 'The registration is disabled', retryable: false });
    let secret: string;
    try {
      secret = this.webhooks.secretOf(delivery);
    } catch (error) {
      // Nothing is sent unsigned: retried on the schedule, so configuring the key again in time saves the delivery.
      if (error instanceof UnreadableSecretError) throw failed({ error: error.message });
      throw error;
    }
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
        'webhook-signature': signDelivery(secret, eventId, timestamp, body),
      });
    } catch (error) {
      throw failed({
        error: error instanceof UnsafeUrlError ? error.message : `The receiver could not be reached: ${(error as Error).message}`,
      });
    }
    if (answer.statusCode >= 200 && answer.statusCode < 300) return answer;
    if (answer.statusCode === 410) throw failed({ statusCode: 410, response: answer.excerpt, retryable: false, gone: true });
    throw failed({ statusCode: answer.statusCode, response: answer.excerpt, retryAfterMs: answer.retryAfterMs });
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

/** A failed attempt: retryable unless said otherwise, its reason the error or the receiver's status. */
function failed(parts: Partial<DeliveryFailure>): DeliveryFailed {
  const failure: DeliveryFailure = { statusCode: null, response: null, error: null, retryable: true, reason: '', ...parts };
  failure.reason = failure.error ?? `The receiver answered ${failure.statusCode}`;
  return new DeliveryFailed(failure);
}

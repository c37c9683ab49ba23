import { Injectable } from '@nestjs/common';
import { availableParallelism, totalmem } from 'node:os';
import { readFileSync } from 'node:fs';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Bucket edges that put the seed's targets and its warning and critical levels on edges, so an
 * alert on "share of requests over 500 ms" reads one bucket exactly.
 */
const API_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5]; // target 200 ms, warning 500 ms, critical 1 s
const CHANNEL_WEBHOOK_BUCKETS = [0.05, 0.1, 0.5, 1, 2, 5, 10, 30]; // target 2 s, warning 5 s, critical 10 s
const DELIVERY_BUCKETS = [0.5, 1, 3, 5, 10, 30, 60, 300]; // target 3 s, warning 10 s, critical 30 s
const WEBHOOK_DELIVERY_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300];
const QUERY_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5]; // target 100 ms, warning 500 ms, critical 1 s

/**
 * Every series the service exports (README, "Metrics"), on one registry. Instruments are
 * observed where things happen; gauges of shared state (queues, outbox, pool) are read by the
 * collectors registered with `onScrape`, at scrape time only.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: 'team_inbox_http_request_duration_seconds',
    help: 'API requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: API_BUCKETS,
    registers: [this.registry],
  });

  readonly channelWebhookDuration = new Histogram({
    name: 'team_inbox_channel_webhook_duration_seconds',
    help: 'Processing of the WhatsApp webhook, from the request to its answer',
    labelNames: ['outcome'] as const,
    buckets: CHANNEL_WEBHOOK_BUCKETS,
    registers: [this.registry],
  });

  readonly messageDelivery = new Histogram({
    name: 'team_inbox_message_delivery_seconds',
    help: "An agent's message from queued to accepted by the channel (sent) or given up (failed)",
    labelNames: ['outcome'] as const,
    buckets: DELIVERY_BUCKETS,
    registers: [this.registry],
  });

  /** Per number: the inbox's public id, a handful of values (one per WhatsApp number of the install). */
  readonly channelSends = new Counter({
    name: 'team_inbox_channel_sends_total',
    help: "Agents' messages accepted by the channel (sent) or given up (failed), per inbox (WhatsApp number)",
    labelNames: ['inbox', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookDelivery = new Histogram({
    name: 'team_inbox_webhook_delivery_seconds',
    help: 'An event from recorded to answered 2xx by a registered receiver (delivered) or given up (failed)',
    labelNames: ['outcome'] as const,
    buckets: WEBHOOK_DELIVERY_BUCKETS,
    registers: [this.registry],
  });

  readonly webhookDeliveryAttempts = new Counter({
    name: 'team_inbox_webhook_delivery_attempts_total',
    help: 'Attempts to deliver an event to a registered receiver, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly recordedWorkAttempts = new Counter({
    name: 'team_inbox_recorded_work_attempts_total',
    help: 'Attempts at recorded work (sends, receipts, downloads, syncs, e-mails, webhook deliveries), by job and outcome',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly recordedWorkAttemptDuration = new Histogram({
    name: 'team_inbox_recorded_work_attempt_duration_seconds',
    help: 'One attempt at recorded work, from its claim to its outcome recorded, by job',
    labelNames: ['job'] as const,
    buckets: API_BUCKETS,
    registers: [this.registry],
  });

  readonly queueDepth = new Gauge({
    name: 'team_inbox_queue_depth',
    help: 'Jobs waiting to start, by queue',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  readonly queueOldestAge = new Gauge({
    name: 'team_inbox_queue_oldest_age_seconds',
    help: 'Age of the oldest job waiting to start, by queue (0 when none waits)',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  readonly outboxLag = new Gauge({
    name: 'team_inbox_outbox_lag_seconds',
    help: 'Age of the oldest recorded event not yet relayed (0 when none)',
    registers: [this.registry],
  });

  readonly queryDuration = new Histogram({
    name: 'team_inbox_db_query_duration_seconds',
    help: 'Database statements run by the repositories',
    buckets: QUERY_BUCKETS,
    registers: [this.registry],
  });

  readonly poolConnections = new Gauge({
    name: 'team_inbox_db_pool_connections',
    help: 'Connections of the database pool by state (total, idle, waiting: requests waiting for one)',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });

  private readonly collectors: (() => Promise<void>)[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'team_inbox_cpu_cores',
      help: 'CPUs available to the process (cgroup quota, else the machine): CPU use is rate(process_cpu_seconds_total) / this',
      registers: [this.registry],
    }).set(availableCpus());
    new Gauge({
      name: 'team_inbox_memory_limit_bytes',
      help: 'Memory available to the process (cgroup limit, else the machine): memory use is process_resident_memory_bytes / this',
      registers: [this.registry],
    }).set(memoryLimitBytes());
  }

  /** Reads shared state into gauges before each scrape; a failing collector leaves its gauges as they were. */
  onScrape(collect: () => Promise<void>): void {
    this.collectors.push(collect);
  }

  async scrape(): Promise<string> {
    await Promise.allSettled(this.collectors.map((collect) => collect()));
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** cgroup v2's cpu.max quota, else the CPUs Node sees. */
function availableCpus(): number {
  const [quota, period] = readCgroup('/sys/fs/cgroup/cpu.max')?.split(' ') ?? [];
  if (quota && quota !== 'max' && Number(period) > 0) return Number(quota) / Number(period);
  return availableParallelism();
}

/** cgroup v2's memory.max, else the machine's memory. */
function memoryLimitBytes(): number {
  const limit = readCgroup('/sys/fs/cgroup/memory.max');
  return limit && /^\d+$/.test(limit) ? Math.min(Number(limit), totalmem()) : totalmem();
}

function readCgroup(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '../config/app-config';
import { Metrics } from './metrics';

/**
 * GET /metrics on METRICS_PORT, without a token: a port of its own is kept off the public
 * network by the deployment (not published, or open to the Prometheus server only).
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server: Server | null = null;

  constructor(
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === null) return;
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Only GET /metrics is served here' }));
        return;
      }
      this.metrics.scrape().then(
        (text) => response.writeHead(200, { 'content-type': this.metrics.contentType }).end(text),
        (error: unknown) => {
          this.logger.error(`Metrics not collected: ${String(error)}`);
          response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Internal server error' }));
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.metricsPort!, this.config.host, () => resolve());
    });
    this.server = server;
    this.logger.log(`Metrics on http://${this.config.host}:${(server.address() as AddressInfo).port}/metrics`);
  }

  /** The port it listens on (METRICS_PORT), once started. */
  get port(): number | null {
    return this.server ? (this.server.address() as AddressInfo).port : null;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

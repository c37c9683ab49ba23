import { Global, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { observeStatements } from '../database/sql';
import { JobQueue } from '../queue/job-queue';
import { Metrics } from './metrics';
import { MetricsController } from './metrics.controller';
import { MetricsServer } from './metrics-server';

/** Gauges of what this module can see without owning it: the job queue and the database pool; and the statements' durations. */
@Injectable()
class SharedStateGauges implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly queue: JobQueue,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    observeStatements((seconds) => this.metrics.queryDuration.observe(seconds));
    this.metrics.onScrape(async () => {
      const now = Date.now();
      for (const name of this.queue.names) {
        const { count, oldestAddedAt } = await this.queue.waiting(name);
        this.metrics.queueDepth.set({ queue: name }, count);
        this.metrics.queueOldestAge.set({ queue: name }, oldestAddedAt === null ? 0 : Math.max(0, now - oldestAddedAt) / 1000);
      }
    });
    this.metrics.onScrape(() => {
      // TypeORM's PostgreSQL driver keeps its pg Pool as `master` (both engines speak to it through pg).
      const pool = (this.dataSource.driver as unknown as { master?: Pool }).master;
      if (pool) {
        this.metrics.poolConnections.set({ state: 'total' }, pool.totalCount);
        this.metrics.poolConnections.set({ state: 'idle' }, pool.idleCount);
        this.metrics.poolConnections.set({ state: 'waiting' }, pool.waitingCount);
      }
      return Promise.resolve();
    });
  }
}

/** Prometheus metrics: the instruments (global, observed where things happen) and where they are served. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics, MetricsServer, SharedStateGauges],
  exports: [Metrics],
})
export class MetricsModule {}

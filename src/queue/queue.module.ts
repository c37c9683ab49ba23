import { BullModule } from '@nestjs/bull';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Broadcast, LocalBroadcast, RedisBroadcast } from './broadcast';
import { BullJobQueue } from './bull-job-queue';
import { InProcessJobQueue } from './in-process-job-queue';
import { JOB_NAMES, JobQueue } from './job-queue';

/** The only place that knows whether jobs and broadcasts go through Redis (REDIS_URL) or stay in this process. */
@Global()
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig): DynamicModule {
    if (!config.redisUrl) {
      return {
        module: QueueModule,
        providers: [
          { provide: JobQueue, useClass: InProcessJobQueue },
          { provide: Broadcast, useClass: LocalBroadcast },
        ],
        exports: [JobQueue, Broadcast],
      };
    }
    return {
      module: QueueModule,
      imports: [
        // A job whose worker was killed is "stalled": Bull runs it again after stalledInterval
        // (30 s by default). Checked every 5 s, so work a crash interrupted resumes in seconds.
        BullModule.forRoot({
          url: config.redisUrl,
          prefix: `${config.redisPrefix}bull`,
          settings: { stalledInterval: 5_000, lockDuration: 10_000 },
        }),
        BullModule.registerQueue(...JOB_NAMES.map((name) => ({ name }))),
      ],
      providers: [
        { provide: JobQueue, useClass: BullJobQueue },
        { provide: Broadcast, useClass: RedisBroadcast },
      ],
      exports: [JobQueue, Broadcast],
    };
  }
}

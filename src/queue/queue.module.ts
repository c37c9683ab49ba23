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
        // A job whose worker was killed is "stalled" once its lock lapses, and Bull runs it again at
        // the next stalled check (by default a 30 s lock checked every 30 s). A 4 s lock (renewed
        // every 2 s while the job runs) checked every 2 s resumes it within 6 s of the kill; the
        // relay's hand-off cannot, since the job id of that attempt is still taken in Redis. A
        // false stall (an event loop blocked for 4 s) only repeats a job, which its row's claim
        // for that attempt turns into a no-op.
        BullModule.forRoot({
          url: config.redisUrl,
          prefix: `${config.redisPrefix}bull`,
          settings: { stalledInterval: 2_000, lockDuration: 4_000 },
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

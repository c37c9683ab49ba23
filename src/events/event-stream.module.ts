import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { EventReplayService } from './event-replay.service';
import { EventStream } from './event-stream';
import { EventStreamClients } from './event-stream-clients.service';
import { EventsStreamController } from './events-stream.controller';
import { LocalEventStream } from './local-event-stream';
import { RedisEventStream } from './redis-event-stream';
import { StreamInterruptions } from './stream-interruptions';

/**
 * The live event stream: `EventStream` (injected by the abstract class) fans events out through
 * Redis pub/sub when REDIS_URL is set, so every instance's clients get every event, in process
 * otherwise; and GET /api/v1/events/stream serves it as Server-Sent Events. Global: the relay
 * publishes to it.
 */
@Global()
@Module({})
export class EventStreamModule {
  static forRoot(config: AppConfig): DynamicModule {
    const engine = config.redisUrl ? RedisEventStream : LocalEventStream;
    const providers: Provider[] = [
      engine,
      { provide: EventStream, useExisting: engine },
      { provide: StreamInterruptions, useExisting: engine },
      EventReplayService,
      EventStreamClients,
    ];
    return {
      module: EventStreamModule,
      providers,
      controllers: [EventsStreamController],
      exports: [EventStream],
    };
  }
}

import { DynamicModule, Injectable, Module, OnModuleInit, Provider } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../config/app-config';
import { UsersModule } from '../users/users.module';
import { toEnvelope } from './event-envelope';
import { EventReplayService } from './event-replay.service';
import { EventStream } from './event-stream';
import { EventStreamClients } from './event-stream-clients.service';
import { EventsStreamController } from './events-stream.controller';
import { LocalEventStream } from './local-event-stream';
import { OpenStreamRepository } from './open-stream.repository';
import { OutboxRelay } from './outbox-relay';
import { RedisEventStream } from './redis-event-stream';
import { StreamInterruptions } from './stream-interruptions';

/** Publishes every relayed event to the live stream, after the relay's commit. */
@Injectable()
class StreamPublisher implements OnModuleInit {
  constructor(
    private readonly relay: OutboxRelay,
    private readonly stream: EventStream,
  ) {}

  onModuleInit(): void {
    this.relay.addConsumer({
      afterCommit: (events) =>
        this.stream.publish(events.map((event) => ({ envelope: toEnvelope(event), audience: event.audience, inboxId: event.inbox_id }))),
    });
  }
}

/**
 * The live event stream: `EventStream` (injected by the abstract class) fans events out through
 * Redis pub/sub when REDIS_URL is set, so every instance's clients get every event, in process
 * otherwise; and GET /api/v1/events/stream serves it as Server-Sent Events. StreamPublisher
 * registers it with the relay, which publishes every event once it is relayed.
 */
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
      OpenStreamRepository,
      StreamPublisher,
    ];
    return {
      module: EventStreamModule,
      imports: [AuthModule, UsersModule],
      providers,
      controllers: [EventsStreamController],
    };
  }
}

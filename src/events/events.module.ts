import { Global, Module } from '@nestjs/common';
import { EventRepository } from './event.repository';
import { EventsService } from './events.service';
import { OutboxRelay } from './outbox-relay';
import { RetentionService } from './retention.service';
import { UserFrames } from './user-frames';

/** Global: every feature that changes data records its events here, hands on its work through the relay, and takes part in the retention prune. */
@Global()
@Module({
  providers: [EventRepository, EventsService, OutboxRelay, RetentionService, UserFrames],
  exports: [EventRepository, EventsService, OutboxRelay, RetentionService, UserFrames],
})
export class EventsModule {}

import { Global, Module } from '@nestjs/common';
import { EventRepository } from './event.repository';
import { EventsService } from './events.service';
import { OutboxRelay } from './outbox-relay';
import { RetentionService } from './retention.service';

/** Global: every feature that changes data records its events here, hands on its work through the relay, and takes part in the retention prune. */
@Global()
@Module({
  providers: [EventRepository, EventsService, OutboxRelay, RetentionService],
  exports: [EventRepository, EventsService, OutboxRelay, RetentionService],
})
export class EventsModule {}

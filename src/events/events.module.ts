import { Global, Module } from '@nestjs/common';
import { EventRepository } from './event.repository';
import { EventsService } from './events.service';
import { OutboxRelay } from './outbox-relay';

/** Global: every feature that changes data records its events here, and hands on its work through the relay. */
@Global()
@Module({
  providers: [EventRepository, EventsService, OutboxRelay],
  exports: [EventRepository, EventsService, OutboxRelay],
})
export class EventsModule {}

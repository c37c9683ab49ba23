import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DomainEvent } from './event.entity';
import { EventsService } from './events.service';

/** Global: every feature that changes data records its events here. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([DomainEvent])],
  providers: [EventsService],
  exports: [EventsService],
})
export class EventsModule {}

import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { EventRelay } from './event-relay';

@Module({
  imports: [WebhooksModule],
  providers: [EventRelay],
})
export class EventRelayModule {}

import { Module } from '@nestjs/common';
import { DeliveryRepository } from './delivery.repository';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookRepository } from './webhook.repository';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

@Module({
  controllers: [WebhooksController],
  providers: [WebhookRepository, DeliveryRepository, WebhooksService, WebhookDeliveryProcessor],
})
export class WebhooksModule {}

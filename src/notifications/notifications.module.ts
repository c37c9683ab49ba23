import { Module } from '@nestjs/common';
import { NotificationRepository } from './notification.repository';
import { NotificationsController } from './notifications.controller';
import { NotificationsService } from './notifications.service';

/** The caller's notifications; other modules create them with NotificationsService.notify inside their transactions. */
@Module({
  controllers: [NotificationsController],
  providers: [NotificationRepository, NotificationsService],
  exports: [NotificationsService],
})
export class NotificationsModule {}

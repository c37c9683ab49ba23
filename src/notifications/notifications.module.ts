import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { MailModule } from '../mail/mail.module';
import { NotificationEmailer } from './notification-emailer';
import { NotificationRepository } from './notification.repository';
import { NotificationsController } from './notifications.controller';
import { NotificationsService } from './notifications.service';

/**
 * The caller's notifications; other modules create them with NotificationsService.notify inside
 * their transactions. NotificationEmailer e-mails those left unread.
 */
@Module({
  imports: [MailModule, UsersModule],
  controllers: [NotificationsController],
  providers: [NotificationRepository, NotificationsService, NotificationEmailer],
  exports: [NotificationsService],
})
export class NotificationsModule {}

import { DynamicModule, Module } from '@nestjs/common';
import { AccountsModule } from './accounts/accounts.module';
import { AuditModule } from './audit/audit.module';
import { AuditLogModule } from './audit-log/audit-log.module';
import { AuthModule } from './auth/auth.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { CannedResponsesModule } from './canned-responses/canned-responses.module';
import { ContactMergeModule } from './contact-merge/contact-merge.module';
import { CustomerBlockingModule } from './customer-blocking/customer-blocking.module';
import { ContactsModule } from './contacts/contacts.module';
import { EventsModule } from './events/events.module';
import { ConversationsModule } from './conversations/conversations.module';
import { EventStreamModule } from './events/event-stream.module';
import { HealthModule } from './health/health.module';
import { InboundModule } from './inbound/inbound.module';
import { InboxesModule } from './inboxes/inboxes.module';
import { LabelsModule } from './labels/labels.module';
import { TeamsModule } from './teams/teams.module';
import { AssignmentModule } from './assignment/assignment.module';
import { ReportsModule } from './reports/reports.module';
import { MailModule } from './mail/mail.module';
import { MediaModule } from './media/media.module';
import { MessagingModule } from './messaging/messaging.module';
import { NotificationsModule } from './notifications/notifications.module';
import { QueueModule } from './queue/queue.module';
import { RecordedWorkModule } from './recorded-work/recorded-work.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { TemplatesModule } from './templates/templates.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { MetricsModule } from './metrics/metrics.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config),
        EventsModule,
        AuditModule,
        AuditLogModule,
        QueueModule.forRoot(config),
        MetricsModule,
        RecordedWorkModule,
        EventStreamModule.forRoot(config),
        AuthModule,
        UsersModule,
        MailModule,
        AccountsModule,
        RateLimitModule,
        ContactsModule,
        NotificationsModule,
        TemplatesModule,
        InboxesModule,
        LabelsModule,
        TeamsModule,
        ReportsModule,
        MediaModule,
        ConversationsModule,
        AssignmentModule,
        ContactMergeModule,
        CustomerBlockingModule,
        CannedResponsesModule,
        MessagingModule,
        InboundModule,
        WebhooksModule,
        HealthModule,
      ],
    };
  }
}

import { Module } from '@nestjs/common';
import { InboxesModule } from '../inboxes/inboxes.module';
import { TemplateRepository } from './template.repository';
import { TemplateSyncProcessor } from './template-sync.processor';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

/**
 * The template catalogues, one per business account. It knows no channel: each catalogue is read
 * through the channel of an inbox on its account (InboxChannels); conversations check sends with
 * it, and the inbound webhook reports template changes to it.
 */
@Module({
  imports: [InboxesModule],
  controllers: [TemplatesController],
  providers: [TemplateRepository, TemplatesService, TemplateSyncProcessor],
  exports: [TemplatesService],
})
export class TemplatesModule {}

import { Module } from '@nestjs/common';
import { TemplateRepository } from './template.repository';
import { TemplateSyncProcessor } from './template-sync.processor';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

/**
 * The template catalogue. It knows no channel: the messaging module hands it the channel as its
 * source; conversations check sends with it, and the inbound webhook reports template changes to it.
 */
@Module({
  controllers: [TemplatesController],
  providers: [TemplateRepository, TemplatesService, TemplateSyncProcessor],
  exports: [TemplatesService],
})
export class TemplatesModule {}

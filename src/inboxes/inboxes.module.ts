import { Module } from '@nestjs/common';
import { InboxRepository } from './inbox.repository';
import { InboxesController } from './inboxes.controller';
import { InboxesService } from './inboxes.service';

/** The business's WhatsApp numbers, each an inbox of conversations; the default one kept in step with the MESSAGING_* settings. */
@Module({
  controllers: [InboxesController],
  providers: [InboxRepository, InboxesService],
  exports: [InboxesService],
})
export class InboxesModule {}

import { Module } from '@nestjs/common';
import { InboxChannels } from '../channel/channel-client';
import { UsersModule } from '../users/users.module';
import { InboxChannelDirectory } from './inbox-channels';
import { InboxRepository } from './inbox.repository';
import { InboxesController } from './inboxes.controller';
import { InboxesService } from './inboxes.service';

/**
 * The business's WhatsApp numbers, each an inbox of conversations with its own channel
 * (InboxChannels); the default one kept in step with the MESSAGING_* settings.
 */
@Module({
  imports: [UsersModule],
  controllers: [InboxesController],
  providers: [InboxRepository, InboxesService, { provide: InboxChannels, useClass: InboxChannelDirectory }],
  exports: [InboxesService, InboxChannels],
})
export class InboxesModule {}

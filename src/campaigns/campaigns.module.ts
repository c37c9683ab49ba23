import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { OptOutService } from './opt-out.service';

/** Outreach to customers: for now, their own opt-out of it (STOP and START), which every campaign respects. */
@Module({
  imports: [ContactsModule, ConversationsModule],
  providers: [OptOutService],
  exports: [OptOutService],
})
export class CampaignsModule {}

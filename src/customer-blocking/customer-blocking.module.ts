import { InboxesModule } from '../inboxes/inboxes.module';
import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { CustomerBlockingController } from './customer-blocking.controller';
import { CustomerBlockingService } from './customer-blocking.service';

@Module({
  imports: [ContactsModule, ConversationsModule, InboxesModule],
  controllers: [CustomerBlockingController],
  providers: [CustomerBlockingService],
})
export class CustomerBlockingModule {}

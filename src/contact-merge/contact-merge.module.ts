import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { ContactMergeController } from './contact-merge.controller';
import { ContactMergeService } from './contact-merge.service';

@Module({
  imports: [ContactsModule, ConversationsModule],
  controllers: [ContactMergeController],
  providers: [ContactMergeService],
})
export class ContactMergeModule {}

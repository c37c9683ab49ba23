import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { InboxesModule } from '../inboxes/inboxes.module';
import { AutoRepliesService } from './auto-replies.service';
import { AutoResolve } from './auto-resolve';

/** What the inbox does by itself: greeting and away messages, closing conversations that went quiet. */
@Module({
  imports: [ConversationsModule, InboxesModule],
  providers: [AutoRepliesService, AutoResolve],
  exports: [AutoRepliesService],
})
export class AutomationModule {}

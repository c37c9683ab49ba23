import { Injectable } from '@nestjs/common';
import type { ConversationRow } from '../conversations/conversation.entity';
import { ConversationsService } from '../conversations/conversations.service';
import { MessagesService } from '../conversations/messages.service';
import type { Db } from '../database/sql';
import { isOpenAt } from '../inboxes/business-hours';
import type { InboxAutomation } from '../inboxes/inboxes.service';

/**
 * The inbox's own answers to a customer's message, in the transaction that stores it (so a crash
 * loses or repeats neither: the send is recorded work like any reply):
 * - the greeting, on the first message of a new conversation, inside business hours;
 * - the away message, outside business hours, at most once per conversation in 12 hours (on a
 *   new conversation outside hours it replaces the greeting: at 2 a.m. "we answer at 9" is the
 *   one that is true).
 * Each is `automated`, never sent to a blocked customer or outside the 24 hours.
 */
@Injectable()
export class AutoRepliesService {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
  ) {}

  /** `inbox` is the conversation's inbox as the ingest routed the message (InboxRouter.automationOf): not read again. */
  async afterCustomerMessage(
    db: Db,
    conversation: ConversationRow,
    inbox: InboxAutomation | null,
    { created, at }: { created: boolean; at: Date },
  ): Promise<void> {
    if (!inbox || (!inbox.greeting?.enabled && !inbox.away?.enabled)) return;
    if (!isOpenAt(inbox.business_hours, at)) {
      if (inbox.away?.enabled && (await this.conversations.claimAwayMessage(db, conversation.id, at)))
        await this.messages.queueAutomatic(db, conversation, { type: 'text', text: inbox.away.text }, at);
      return;
    }
    if (created && inbox.greeting?.enabled)
      await this.messages.queueAutomatic(db, conversation, { type: 'text', text: inbox.greeting.text }, at);
  }
}

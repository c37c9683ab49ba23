import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { ContactRow } from '../contacts/contact.entity';
import { ContactsService } from '../contacts/contacts.service';
import type { ConversationRow } from '../conversations/conversation.entity';
import { MessagesService } from '../conversations/messages.service';
import type { Db } from '../database/sql';

const OPTED_OUT = 'You will not get our campaign messages any more. Reply START to get them again.';
const OPTED_IN = 'You will get our campaign messages again. Reply STOP to stop them.';

/**
 * A customer's own word on campaigns, in the transaction that stores their message: a message that
 * is one of CAMPAIGN_OPT_OUT_WORDS (any case, nothing else in it) opts them out, one of
 * CAMPAIGN_OPT_IN_WORDS back in. Each change is confirmed once, by an automated message (they just
 * wrote, so the 24 hours are open); a second STOP changes and says nothing. Campaigns skip every
 * contact opted out; the conversation itself goes on as ever.
 */
@Injectable()
export class OptOutService {
  constructor(
    private readonly config: AppConfig,
    private readonly contacts: ContactsService,
    private readonly messages: MessagesService,
  ) {}

  /** Answers whether the message was such a word (then the inbox's other automatic replies stay quiet). */
  async afterCustomerMessage(db: Db, contact: ContactRow, conversation: ConversationRow, text: string | null, at: Date): Promise<boolean> {
    const word = text?.trim().toUpperCase();
    if (!word) return false;
    const optOut = this.config.campaignOptOutWords.includes(word);
    if (!optOut && !this.config.campaignOptInWords.includes(word)) return false;
    if (await this.contacts.setOptedOut(db, contact.id, optOut))
      await this.messages.queueAutomatic(db, conversation, { type: 'text', text: optOut ? OPTED_OUT : OPTED_IN }, at);
    return true;
  }
}

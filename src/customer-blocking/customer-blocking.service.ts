import { Injectable, ServiceUnavailableException, UnprocessableEntityException } from '@nestjs/common';
import { type ChannelClient, ChannelError, InboxChannels } from '../channel/channel-client';
import { ContactResponse } from '../contacts/contact.dto';
import { seesInbox, type UserRow } from '../users/user.entity';
import { ContactsService } from '../contacts/contacts.service';
import { ConversationsService } from '../conversations/conversations.service';
import { Database } from '../database/database';

/**
 * Blocking a customer on the channel: they can no longer write to the business, nor it to them.
 * The channel keeps a block list per number: the customer is blocked on the number (the inbox)
 * they wrote to last, within the 24 hours the channel asks for, and unblocked on that same one.
 * The channel is asked first and the contact marked only when it agreed, so `blocked` never shows a
 * block the channel does not hold. Blocking twice, or unblocking a customer who is not blocked,
 * changes nothing and asks the channel nothing.
 */
@Injectable()
export class CustomerBlockingService {
  constructor(
    private readonly database: Database,
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsService,
    private readonly channels: InboxChannels,
  ) {}

  async block(contactId: string, actor: UserRow): Promise<ContactResponse> {
    const inboxId = await this.conversations.customersLatestInbox(this.database.db, contactId);
    const channel = await this.channelOf(inboxId, actor, 'block');
    // One transaction holding the contact's lock while the channel is asked: two requests at once
    // take turns, so the contact's `blocked` is what the channel was last told.
    return this.database.transaction(async (db) => {
      const contact = await this.contacts.lockForBlocking(db, contactId);
      if (contact.blocked) return contact;
      // The channel's own rule, checked here too so that the sandbox keeps it and the channel is not asked in vain.
      await this.conversations.customersLatestInbox(db, contactId, {
        now: new Date(),
        what: 'only a customer who wrote in the last 24 hours can be blocked',
      });
      await this.ask(() => channel.block(blockListUserOf(contact)), 'block');
      return this.contacts.setBlocked(db, contactId, { at: new Date(), inboxId });
    });
  }

  async unblock(contactId: string, actor: UserRow): Promise<ContactResponse> {
    // The number they were blocked on, even if they wrote to another since (a block made before
    // that was recorded: the one they wrote to last, as then).
    const inboxId =
      (await this.contacts.blockedInboxOf(this.database.db, contactId)) ??
      (await this.conversations.customersLatestInbox(this.database.db, contactId));
    const channel = await this.channelOf(inboxId, actor, 'unblock');
    return this.database.transaction(async (db) => {
      const contact = await this.contacts.lockForBlocking(db, contactId);
      if (!contact.blocked) return contact;
      await this.ask(() => channel.unblock(blockListUserOf(contact)), 'unblock');
      return this.contacts.setBlocked(db, contactId, null);
    });
  }

  /**
   * The channel of the inbox whose number's block list is asked, read before the transaction: the
   * embedded engine's one connection is the transaction's until it ends. A 422 for an agent who
   * does not work that inbox.
   */
  private async channelOf(inboxId: string, actor: UserRow, what: 'block' | 'unblock'): Promise<ChannelClient> {
    if (!seesInbox(actor, inboxId))
      throw new UnprocessableEntityException(
        what === 'block'
          ? 'The customer last wrote to an inbox you do not work: an admin can block them'
          : 'The customer is blocked on the number of an inbox you do not work: an admin can unblock them',
      );
    return this.channels.of(inboxId);
  }

  /** The channel's refusal is the caller's 422 with its reason; a channel that cannot be reached, a 503 to try again. */
  private async ask(request: () => Promise<void>, what: 'block' | 'unblock'): Promise<void> {
    try {
      await request();
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      if (error.retryable) throw new ServiceUnavailableException(`The channel could not ${what} the customer now: try again in a moment`);
      throw new UnprocessableEntityException(`The channel refused to ${what} the customer: ${error.message}`);
    }
  }
}

/** The channel's block list names a customer by phone, or by user id when they share none. */
function blockListUserOf(contact: ContactResponse): string {
  return contact.phone ?? contact.wa_user_id!;
}

import { Injectable } from '@nestjs/common';
import { type ChannelAccount, ChannelClient, ChannelError, InboxChannels, SANDBOX_CATALOGUE } from '../channel/channel-client';
import { SecretBox } from '../config/secret-box';
import { Database } from '../database/database';
import { ChannelFactory } from '../messaging/channel-factory';
import { DEFAULT_INBOX_ID } from '../common/default-inbox';
import type { InboxRow } from './inbox.entity';
import { InboxRepository } from './inbox.repository';

/** Whether the inbox is a number on the Cloud API: one without a token or number is the sandbox. */
function isOnCloudApi(inbox: InboxRow): inbox is InboxRow & { access_token: string; phone_number_id: string } {
  return inbox.access_token !== null && inbox.phone_number_id !== null;
}

/** The inbox's account on the Cloud API, its token opened; null without a token (the sandbox). */
export function accountOf(inbox: InboxRow, secrets: SecretBox): ChannelAccount | null {
  if (!isOnCloudApi(inbox)) return null;
  return {
    phoneNumberId: inbox.phone_number_id,
    accessToken: secrets.open(inbox.access_token),
    businessAccountId: inbox.business_account_id,
  };
}

/** The template catalogue the inbox's channel reads (catalogueOf its account), told from its row without opening its token. */
export function catalogueOfInbox(inbox: InboxRow): string | null {
  return isOnCloudApi(inbox) ? inbox.business_account_id : SANDBOX_CATALOGUE;
}

/**
 * Each inbox's channel, read from its row at every call (one primary-key read, so a change made on
 * any replica is seen by the next send) and made again only when the row changed: a client keeps
 * its health probe's cache. The default inbox's is the ChannelClient the settings made, which its
 * row mirrors.
 */
@Injectable()
export class InboxChannelDirectory extends InboxChannels {
  private readonly made = new Map<string, { updatedAt: number; channel: ChannelClient }>();

  constructor(
    private readonly database: Database,
    private readonly inboxes: InboxRepository,
    private readonly secrets: SecretBox,
    private readonly factory: ChannelFactory,
    private readonly defaultChannel: ChannelClient,
  ) {
    super();
  }

  async of(inboxId: string): Promise<ChannelClient> {
    if (inboxId === DEFAULT_INBOX_ID) return this.defaultChannel;
    const inbox = await this.inboxes.find(this.database.db, inboxId);
    if (!inbox) throw new ChannelError('The inbox of this conversation no longer exists', false);
    if (inbox.status !== 'active') throw new ChannelError(`The inbox "${inbox.name}" is disabled: it sends nothing`, false);
    const updatedAt = inbox.updated_at.getTime();
    const known = this.made.get(inboxId);
    if (known?.updatedAt === updatedAt) return known.channel;
    const channel = this.factory.create(accountOf(inbox, this.secrets));
    this.made.set(inboxId, { updatedAt, channel });
    return channel;
  }

  async accountBroken(inboxId: string, reason: string, channel: ChannelClient): Promise<void> {
    if (inboxId === DEFAULT_INBOX_ID) {
      // Its channel is the settings', which change only with a restart.
      await this.inboxes.recordChannelError(this.database.db, inboxId, reason);
      return;
    }
    const made = this.made.get(inboxId);
    if (made?.channel !== channel) return;
    await this.inboxes.recordChannelError(this.database.db, inboxId, reason, new Date(made.updatedAt));
  }
}

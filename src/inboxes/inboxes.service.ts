import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { mapPage, type Page, type PageQuery } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import { SecretBox } from '../config/secret-box';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { InboxResponse } from './inbox.dto';
import { DEFAULT_INBOX_ID, type InboxRow } from './inbox.entity';
import { InboxRepository } from './inbox.repository';

@Injectable()
export class InboxesService implements OnApplicationBootstrap {
  constructor(
    private readonly database: Database,
    private readonly inboxes: InboxRepository,
    private readonly config: AppConfig,
    private readonly secrets: SecretBox,
  ) {}

  async list(query: PageQuery): Promise<Page<InboxResponse>> {
    return mapPage(await this.inboxes.page(this.database.db, query), InboxResponse.of);
  }

  /**
   * Which inbox each business number's webhook changes belong to, as the inboxes are now: the one
   * with that phone_number_id; a change that names no number goes to the default inbox, and so
   * does every number while the default inbox is the sandbox (it has no number of its own, and an
   * install trying the service must not lose what it is sent). Null: no inbox has the number.
   */
  async router(db: Db): Promise<(phoneNumberId: string | null) => string | null> {
    const inboxes = await this.inboxes.list(db);
    const byNumber = new Map(
      inboxes.flatMap((inbox) => (inbox.phone_number_id === null ? [] : [[inbox.phone_number_id, inbox.id] as const])),
    );
    const sandboxDefault = inboxes.some((inbox) => inbox.is_default && inbox.phone_number_id === null);
    return (phoneNumberId) =>
      phoneNumberId === null ? DEFAULT_INBOX_ID : (byNumber.get(phoneNumberId) ?? (sandboxDefault ? DEFAULT_INBOX_ID : null));
  }

  /** Whether the inbox exists and is active: a conversation can be opened in it. */
  async isActive(db: Db, id: string): Promise<boolean> {
    return (await this.inboxes.find(db, id))?.status === 'active';
  }

  /**
   * Before serving: the default inbox as the MESSAGING_* settings describe it (its number, business
   * account, token and app secret; none of them for the sandbox), so that changing a setting and
   * restarting changes the inbox. Written only when something differs: every replica runs this.
   */
  async onApplicationBootstrap(): Promise<void> {
    const current = await this.inboxes.find(this.database.db, DEFAULT_INBOX_ID);
    if (!current) throw new Error('The default inbox is missing: the database was changed by hand');
    const wanted = {
      phone_number_id: this.config.messagingPhoneNumberId,
      business_account_id: this.config.messagingBusinessAccountId,
      access_token: this.config.messagingAccessToken,
      app_secret: this.config.messagingAppSecret,
    };
    const stored = {
      phone_number_id: current.phone_number_id,
      business_account_id: current.business_account_id,
      access_token: this.openOrNull(current.access_token),
      app_secret: this.openOrNull(current.app_secret),
    };
    if (JSON.stringify(stored) === JSON.stringify(wanted)) return;
    await this.inboxes.describeDefault(this.database.db, DEFAULT_INBOX_ID, {
      ...wanted,
      access_token: this.sealOrNull(wanted.access_token),
      app_secret: this.sealOrNull(wanted.app_secret),
      updated_at: new Date(),
    });
  }

  private sealOrNull(plain: string | null): string | null {
    return plain === null ? null : this.secrets.seal(plain);
  }

  /** A value sealed with a key no longer configured reads as absent: the settings then write it again. */
  private openOrNull(sealed: InboxRow['access_token']): string | null {
    if (sealed === null) return null;
    try {
      return this.secrets.open(sealed);
    } catch {
      return null;
    }
  }
}

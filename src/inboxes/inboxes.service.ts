import {
  BadRequestException,
  ConflictException,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
  UnprocessableEntityException,
} from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import { type ChannelHealth, InboxChannels } from '../channel/channel-client';
import { ChannelFactory } from '../messaging/channel-factory';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { parseDuration } from '../config/duration';
import type { BusinessHours } from './business-hours';
import { mapPage, type Page, type PageQuery } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import { SecretBox } from '../config/secret-box';
import { Database } from '../database/database';
import { isForeignKeyViolation, isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { seesInbox, visibleInboxesOf, type UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import {
  ChannelWebhookResponse,
  CreateInboxDto,
  InboxConnectionResponse,
  AssignmentPolicyDto,
  InboxMembersDto,
  InboxResponse,
  UpdateInboxDto,
} from './inbox.dto';
import { DEFAULT_INBOX_ID } from '../common/default-inbox';
import type { InboxRow } from './inbox.entity';
import { InboxRepository } from './inbox.repository';
import { accountOf, catalogueOfInbox } from './inbox-channels';

/** Where the channel's webhooks arrive (the inbound module's route), for every number. */
const CHANNEL_WEBHOOK_PATH = '/api/webhooks/messaging';

/** The fields of the default inbox the MESSAGING_* settings own: an admin changes them there. */
const SETTINGS_OWNED = ['phone_number_id', 'business_account_id', 'access_token', 'app_secret', 'status'] as const;

/** Whether a change of these fields may mend a broken token or account: a new token, number or business account. */
function mendsChannel(changed: readonly string[]): boolean {
  return ['access_token', 'phone_number_id', 'business_account_id'].some((field) => changed.includes(field));
}

/** Told after an inbox is created or changed, e.g. to replay the webhooks kept for its number. */
type InboxesChanged = () => Promise<void>;

/** An active inbox and the template catalogue its channel reads. */
export interface InboxCatalogue {
  inboxId: string;
  catalogue: string;
}

/** Where the changes of a business number go, and the key their webhooks are signed with. */
export interface InboxRouter {
  /** The inbox of the number's changes; null: no active inbox has it. */
  route(phoneNumberId: string | null): string | null;
  /** The app secret the webhooks of a number (or, for a change about none, of a business account) are signed with; null: none is set. */
  appSecret(source: { phoneNumberId: string | null; businessAccountId: string | null }): string | null;
  /** An inbox's automatic messages and business hours, as read with the routes; null: no such inbox. */
  automationOf(inboxId: string): InboxAutomation | null;
}

/** What an inbox answers a customer with by itself: its automatic messages, their business hours and its survey. */
export type InboxAutomation = Pick<InboxRow, 'business_hours' | 'greeting' | 'away' | 'csat'>;

@Injectable()
export class InboxesService implements OnApplicationBootstrap {
  private readonly logger = new Logger(InboxesService.name);
  private readonly changeListeners: InboxesChanged[] = [];

  constructor(
    private readonly database: Database,
    private readonly inboxes: InboxRepository,
    private readonly config: AppConfig,
    private readonly secrets: SecretBox,
    private readonly audit: AuditLogService,
    private readonly channels: ChannelFactory,
    private readonly users: UsersService,
    private readonly inboxChannels: InboxChannels,
  ) {}

  /** The inboxes the caller may see: every one to an admin, their own to an agent. */
  async list(query: PageQuery, caller: UserRow): Promise<Page<InboxResponse>> {
    return mapPage(await this.inboxes.page(this.database.db, query, visibleInboxesOf(caller)), InboxResponse.of);
  }

  async get(id: string, caller: UserRow): Promise<InboxResponse> {
    return InboxResponse.of(await this.find(this.database.db, id, caller));
  }

  /** What an admin pastes into Meta's dashboard: one callback for every number, its verify token, the fields to subscribe to. */
  channelWebhook(): ChannelWebhookResponse {
    return {
      callback_url: `${this.config.appUrl}${CHANNEL_WEBHOOK_PATH}`,
      verify_token: this.config.messagingWebhookVerifyToken,
      fields: ['messages', 'message_template_status_update', 'template_category_update'],
    };
  }

  /** The inbox's users (admin). */
  async members(id: string): Promise<InboxMembersDto> {
    await this.find(this.database.db, id);
    return { user_ids: (await this.users.membersOf(this.database.db, id)).map((userId) => toPublicId('user', userId)) };
  }

  /**
   * Replaces the inbox's users (admin); those who joined or left are told at once (their streams
   * reconnect with the new inboxes), and those who left lose their notifications about it.
   */
  async setMembers(id: string, dto: InboxMembersDto): Promise<InboxMembersDto> {
    const userIds = dto.user_ids.map((publicId) => parsePublicId('user', publicId)!);
    const { added, removed } = await this.database.transaction(async (db) => {
      if (!(await this.inboxes.lock(db, id))) throw new NotFoundException('Inbox not found');
      const changed = await this.users.setMembersOf(db, id, userIds);
      if (changed.added.length + changed.removed.length > 0) {
        await this.audit.record(db, 'inbox.members_changed', {
          target: toPublicId('inb', id),
          details: {
            added: changed.added.map((userId) => toPublicId('user', userId)),
            removed: changed.removed.map((userId) => toPublicId('user', userId)),
          },
        });
      }
      return changed;
    });
    for (const userId of [...added, ...removed]) await this.users.forget(userId);
    return this.members(id);
  }

  /** A listener called after each create and change (the inbound module replays what waited for a number). */
  whenChanged(listener: InboxesChanged): void {
    this.changeListeners.push(listener);
  }

  /** 409 when another inbox has the number; its token and app secret are sealed before they are written. */
  async create(dto: CreateInboxDto): Promise<InboxResponse> {
    const now = new Date();
    const row: InboxRow = {
      id: newUuid(now.getTime()),
      name: dto.name,
      phone_number_id: dto.phone_number_id,
      display_phone_number: null,
      business_account_id: dto.business_account_id ?? null,
      status: 'active',
      access_token: this.secrets.seal(dto.access_token),
      app_secret: this.sealOrNull(dto.app_secret ?? null),
      is_default: false,
      channel_error: null,
      channel_error_at: null,
      assignment_mode: 'manual',
      assignment_capacity: null,
      assignment_team_id: null,
      assignment_changed_at: now,
      business_hours: null,
      greeting: null,
      away: null,
      auto_resolve_after_seconds: null,
      csat: null,
      created_at: now,
      updated_at: now,
    };
    await this.writeNumber(dto.phone_number_id, () =>
      this.database.transaction(async (db) => {
        await this.inboxes.insert(db, row);
        await this.audit.record(db, 'inbox.created', {
          target: toPublicId('inb', row.id),
          details: { name: row.name, phone_number_id: row.phone_number_id },
        });
      }),
    );
    this.announceChange();
    return InboxResponse.of(row);
  }

  /**
   * Changes what the admin sent. The default inbox's number, business account, token, app secret
   * and status are its MESSAGING_* settings (422 naming them); another inbox's number is 409.
   */
  async update(id: string, dto: UpdateInboxDto): Promise<InboxResponse> {
    const changed = (Object.keys(dto) as (keyof UpdateInboxDto)[]).filter((key) => dto[key] !== undefined);
    const updated = await this.writeNumber(dto.phone_number_id, () =>
      this.database.transaction(async (db) => {
        const inbox = await this.inboxes.lock(db, id);
        if (!inbox) throw new NotFoundException('Inbox not found');
        const owned = SETTINGS_OWNED.filter((field) => changed.includes(field));
        if (inbox.is_default && owned.length > 0) {
          throw new UnprocessableEntityException(
            `The default inbox's ${owned.join(', ')} ${owned.length === 1 ? 'is' : 'are'} set by the MESSAGING_* settings: change them there and restart`,
          );
        }
        const zone = (dto.business_hours as BusinessHours | null | undefined)?.timezone;
        if (zone !== undefined && !(await this.inboxes.knowsTimeZone(db, zone)))
          throw new BadRequestException(`business_hours.timezone ${zone} is not known to the database: use another name of the zone`);
        const assignment = dto.assignment && (await this.assignmentOf(db, id, dto.assignment));
        const row = await this.inboxes.update(db, {
          ...inbox,
          ...assignment,
          assignment_changed_at:
            assignment && assignment.assignment_mode !== inbox.assignment_mode ? new Date() : inbox.assignment_changed_at,
          business_hours: dto.business_hours === undefined ? inbox.business_hours : (dto.business_hours as BusinessHours | null),
          greeting:
            dto.greeting === undefined ? inbox.greeting : dto.greeting && { enabled: dto.greeting.enabled, text: dto.greeting.text },
          away: dto.away === undefined ? inbox.away : dto.away && { enabled: dto.away.enabled, text: dto.away.text },
          csat: dto.csat === undefined ? inbox.csat : dto.csat && { enabled: dto.csat.enabled, question: dto.csat.question },
          auto_resolve_after_seconds:
            dto.auto_resolve_after === undefined
              ? inbox.auto_resolve_after_seconds
              : dto.auto_resolve_after === null
                ? null
                : parseDuration(dto.auto_resolve_after)! / 1000,
          name: dto.name ?? inbox.name,
          phone_number_id: dto.phone_number_id ?? inbox.phone_number_id,
          // Another number is another display number: the next connection test learns it.
          display_phone_number:
            dto.phone_number_id !== undefined && dto.phone_number_id !== inbox.phone_number_id ? null : inbox.display_phone_number,
          business_account_id: dto.business_account_id === undefined ? inbox.business_account_id : dto.business_account_id,
          status: dto.status ?? inbox.status,
          access_token: dto.access_token === undefined ? inbox.access_token : this.secrets.seal(dto.access_token),
          app_secret: dto.app_secret === undefined ? inbox.app_secret : this.sealOrNull(dto.app_secret),
          // A new token, number or account is the admin's mend of what the channel said was broken; the next send tells if it was.
          ...(mendsChannel(changed) ? { channel_error: null, channel_error_at: null } : {}),
          updated_at: new Date(),
        });
        await this.audit.record(db, 'inbox.updated', { target: toPublicId('inb', id), details: { changed } });
        return row;
      }),
    );
    this.announceChange();
    return InboxResponse.of(updated);
  }

  /** Only an inbox without conversations (409: disable it instead), and never the default one. */
  async remove(id: string): Promise<void> {
    try {
      await this.database.transaction(async (db) => {
        const inbox = await this.inboxes.lock(db, id);
        if (!inbox) throw new NotFoundException('Inbox not found');
        if (inbox.is_default) throw new ConflictException('The default inbox cannot be deleted: the MESSAGING_* settings describe it');
        await this.inboxes.delete(db, id);
        await this.audit.record(db, 'inbox.deleted', { target: toPublicId('inb', id), details: { name: inbox.name } });
      });
    } catch (error) {
      if (isForeignKeyViolation(error))
        throw new ConflictException('The inbox has conversations, which would be lost: disable it instead (status "disabled")');
      throw error;
    }
  }

  /**
   * Asks the channel about the inbox's number with its token, now (not the health probe's cached
   * answer), and keeps the number as the channel shows it.
   */
  async testConnection(id: string): Promise<InboxConnectionResponse> {
    const inbox = await this.find(this.database.db, id);
    const health = await this.channels.create(accountOf(inbox, this.secrets)).health();
    if (health.displayPhoneNumber !== undefined && health.displayPhoneNumber !== inbox.display_phone_number)
      await this.inboxes.recordDisplayPhoneNumber(this.database.db, id, health.displayPhoneNumber);
    // The channel answers for the number with its token again: what it said was broken is taken as mended.
    if (health.ok) await this.inboxes.recordChannelError(this.database.db, id, null);
    return {
      ok: health.ok,
      channel: health.channel,
      ...(health.error === undefined ? {} : { error: health.error }),
      display_phone_number: health.displayPhoneNumber ?? inbox.display_phone_number,
    };
  }

  /**
   * The channel of every active inbox, asked at once (each client answers from its health cache
   * for a few seconds); answers those that fail, the default inbox first, and the default inbox's
   * kind of channel. With the database down, the default inbox's alone (its channel needs no row):
   * the channel's health is not the database's.
   */
  async failingChannels(): Promise<{ channel: ChannelHealth['channel']; failing: { inbox: string; error: string }[] }> {
    const rows = await this.inboxes.list(this.database.db).catch(() => []);
    const defaultRow = rows.find((inbox) => inbox.is_default) ?? null;
    const checked = await Promise.all([
      this.inboxChannels.of(DEFAULT_INBOX_ID).then(async (channel) => ({ inbox: null, row: defaultRow, health: await channel.health() })),
      ...rows
        .filter((inbox) => !inbox.is_default && inbox.status === 'active')
        .map(async (inbox) => ({ inbox, row: inbox, health: await (await this.inboxChannels.of(inbox.id)).health() })),
    ]);
    // An inbox fails when its probe does, or when a send was told its token or account is broken
    // (a locked account may still answer the probe) until an admin mends it.
    const failing = checked
      .filter(({ health, row }) => !health.ok || row?.channel_error)
      // The default inbox is named as before there were others; any other by its name and number.
      .map(({ inbox, row, health }) => ({
        inbox: inbox === null ? '' : `inbox "${inbox.name}" (${inbox.phone_number_id}): `,
        error: health.ok ? row!.channel_error! : (health.error ?? 'unhealthy'),
      }));
    return { channel: checked[0].health.channel, failing };
  }

  /** What the inbox sends by itself and when it is open; null for no such inbox. */
  async automationOf(db: Db, id: string): Promise<InboxAutomation | null> {
    return this.inboxes.find(db, id);
  }

  /** The inboxes that close quiet conversations, and after how long (seconds). */
  autoResolving(db: Db): Promise<{ id: string; auto_resolve_after_seconds: number }[]> {
    return this.inboxes.autoResolving(db);
  }

  /** Whether the inbox hands its conversations out by itself: a conversation an agent opens there is theirs at once. */
  assignsAutomatically(db: Db, id: string): Promise<boolean> {
    return this.inboxes.assignsAutomatically(db, id);
  }

  /** The row's fields of an assignment policy; a 422 when its team does not work the inbox. */
  private async assignmentOf(
    db: Db,
    inboxId: string,
    policy: AssignmentPolicyDto,
  ): Promise<Pick<InboxRow, 'assignment_mode' | 'assignment_capacity' | 'assignment_team_id'>> {
    const teamId = policy.team_id === undefined || policy.team_id === null ? null : parsePublicId('team', policy.team_id)!;
    if (teamId !== null && !(await this.inboxes.teamWorks(db, teamId, inboxId)))
      throw new UnprocessableEntityException('assignment.team_id does not name a team that works this inbox');
    return { assignment_mode: policy.mode, assignment_capacity: policy.capacity ?? null, assignment_team_id: teamId };
  }

  /** The inbox, or a 404; with `caller`, a 404 too for an agent who does not work it. */
  private async find(db: Db, id: string, caller?: UserRow): Promise<InboxRow> {
    const inbox = await this.inboxes.find(db, id);
    if (!inbox || (caller !== undefined && !seesInbox(caller, id))) throw new NotFoundException('Inbox not found');
    return inbox;
  }

  /** Runs a write that may give an inbox a number: 409 when another inbox has it. */
  private async writeNumber<T>(phoneNumberId: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error, 'inboxes_phone_number_id_key'))
        throw new ConflictException(`Another inbox has the phone number id ${phoneNumberId}`);
      throw error;
    }
  }

  /** After the commit, not awaited: the listeners' work (a replay of many bodies) must not hold the admin's answer. */
  private announceChange(): void {
    for (const listener of this.changeListeners) {
      listener().catch((error: unknown) =>
        this.logger.warn(`After an inbox changed: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  }

  /**
   * Which inbox each business number's webhook changes belong to, as the inboxes are now: the
   * active one with that phone_number_id; a change that names no number goes to the default inbox,
   * and so does every number while the default inbox is the sandbox (it has no number of its own,
   * and an install trying the service must not lose what it is sent). Null: no active inbox has
   * the number (a disabled inbox receives nothing: its changes wait, as dead letters, for it to be
   * enabled). `appSecret` is the key that number's webhooks are signed with: the inbox's own, else
   * MESSAGING_APP_SECRET (null: none is set).
   */
  async router(db: Db): Promise<InboxRouter> {
    const inboxes = await this.inboxes.list(db);
    const byNumber = new Map(
      inboxes.flatMap((inbox) =>
        inbox.phone_number_id === null || inbox.status !== 'active' ? [] : [[inbox.phone_number_id, inbox] as const],
      ),
    );
    const sandboxDefault = inboxes.some((inbox) => inbox.is_default && inbox.phone_number_id === null);
    const inboxOf = (phoneNumberId: string | null): InboxRow | null =>
      phoneNumberId === null
        ? inboxes.find((inbox) => inbox.is_default)!
        : (byNumber.get(phoneNumberId) ?? (sandboxDefault ? inboxes.find((inbox) => inbox.is_default)! : null));
    return {
      route: (phoneNumberId) => inboxOf(phoneNumberId)?.id ?? null,
      appSecret: ({ phoneNumberId, businessAccountId }) => {
        // The number's own key whatever its inbox's status: a disabled inbox's webhooks are kept, checked with its secret.
        // A template change is signed by the app of an inbox on its business account, if one has its own key; a change
        // naming neither goes to the default inbox, and is checked with its key.
        const owner =
          (phoneNumberId === null
            ? inboxes.find(
                (inbox) => inbox.app_secret !== null && businessAccountId !== null && inbox.business_account_id === businessAccountId,
              )
            : inboxes.find((inbox) => inbox.phone_number_id === phoneNumberId)) ?? inboxOf(phoneNumberId);
        const own = owner?.app_secret ?? null;
        return own === null ? this.config.messagingAppSecret : this.openOrNull(own);
      },
      automationOf: (inboxId) => inboxes.find((inbox) => inbox.id === inboxId) ?? null,
    };
  }

  /**
   * The template catalogue of every active inbox that has one, the default inbox first (its
   * channel is the one a shared catalogue is synced through when it has it). Inboxes on one
   * business account share its catalogue.
   */
  async catalogues(db: Db): Promise<InboxCatalogue[]> {
    const inboxes = (await this.inboxes.list(db)).sort((a, b) => Number(b.is_default) - Number(a.is_default));
    return inboxes.flatMap((inbox) => {
      const catalogue = catalogueOfInbox(inbox);
      return inbox.status === 'active' && catalogue !== null ? [{ inboxId: inbox.id, catalogue }] : [];
    });
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

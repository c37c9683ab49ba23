import { Injectable, Logger, NotFoundException, ServiceUnavailableException, UnprocessableEntityException } from '@nestjs/common';
import { newUuid, parsePublicId } from '../common/ids';
import { mapPage, type Page } from '../common/pagination';
import { toStorable } from '../common/storable-text';
import { Database } from '../database/database';
import { type ChannelClient, type ChannelTemplate, InboxChannels, SANDBOX_CATALOGUE } from '../channel/channel-client';
import { InboxesService, type InboxCatalogue } from '../inboxes/inboxes.service';
import { seesInbox, type UserRow, visibleInboxesOf } from '../users/user.entity';
import type { Db } from '../database/sql';
import { parametersOf, sendProblem, type TemplateDefinition } from './template-parameters';
import { ListTemplatesQuery, SyncResponse, TemplateResponse } from './template.dto';
import { SENDABLE_STATUS, type TemplateChange } from './template.entity';
import { SyncedTemplate, TemplateRepository } from './template.repository';

/** A template send as the API takes it: `{"type":"template","template":{name, language, components}}`. */
export interface TemplateToSend {
  name: string;
  language: string;
  components?: Record<string, unknown>[];
}

/**
 * Events of the channel's `message_template_status_update` that are a template's status: the
 * status is changed at once. The others (FLAGGED, LOCKED, UNARCHIVED, …) describe what happened,
 * not the status it is in now, and only ask for a sync. REINSTATED means "can be sent again".
 */
const STATUS_OF_EVENT: Record<string, string> = {
  APPROVED: 'APPROVED',
  REJECTED: 'REJECTED',
  PENDING: 'PENDING',
  PAUSED: 'PAUSED',
  DISABLED: 'DISABLED',
  IN_APPEAL: 'IN_APPEAL',
  ARCHIVED: 'ARCHIVED',
  PENDING_DELETION: 'PENDING_DELETION',
  DELETED: 'DELETED',
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  REINSTATED: 'APPROVED',
};

/**
 * The template catalogues: one per business account (and the sandbox's own), each read through
 * the channel of an active inbox on that account; listed with what each send must fill, and the
 * check of every template send against the catalogue of its conversation's inbox before it is
 * queued. An inbox without a business account (a real number without
 * business_account_id) has no catalogue, and its template sends are not checked.
 */
@Injectable()
export class TemplatesService {
  private readonly logger = new Logger(TemplatesService.name);
  /** The catalogues a sync is known to have succeeded for: their sends are checked against what is stored. */
  private readonly syncedCatalogues = new Set<string>();
  /** The sync a send runs when no sync of its catalogue ever succeeded, once per catalogue and process. */
  private readonly firstSyncs = new Map<string, Promise<boolean>>();

  constructor(
    private readonly database: Database,
    private readonly templates: TemplateRepository,
    private readonly inboxes: InboxesService,
    private readonly channels: InboxChannels,
  ) {
    // A new inbox, or a changed business account, has its catalogue synced now rather than at the next interval.
    inboxes.whenChanged(() => this.requestSync());
  }

  /**
   * The templates of the catalogue of one inbox (`inbox_id`, 404 for one the caller does not see;
   * none when it has no catalogue), else of every active inbox the caller sees.
   */
  async list(query: ListTemplatesQuery, caller: UserRow): Promise<Page<TemplateResponse>> {
    const db = this.database.db;
    const inboxId = query.inbox_id === undefined ? undefined : parsePublicId('inb', query.inbox_id)!;
    if (inboxId !== undefined) await this.inboxes.get(inboxId, caller);
    const catalogues = (await this.inboxes.catalogues(db))
      .filter((inbox) => (inboxId === undefined ? seesInbox(caller, inbox.inboxId) : inbox.inboxId === inboxId))
      .map((inbox) => inbox.catalogue);
    const page = await this.templates.list(db, { catalogues, status: query.status, language: query.language, q: query.q }, query);
    return mapPage(page, TemplateResponse.of);
  }

  /** One template; 404 to an agent when no inbox it works reads its catalogue. */
  async get(id: string, caller: UserRow): Promise<TemplateResponse> {
    const db = this.database.db;
    const row = await this.templates.find(db, id);
    const seen =
      row !== null &&
      (await this.inboxes.catalogues(db)).some((inbox) => inbox.catalogue === row.catalogue && seesInbox(caller, inbox.inboxId));
    if (!row || (!seen && visibleInboxesOf(caller) !== null)) throw new NotFoundException('Template not found');
    return TemplateResponse.of(row);
  }

  /**
   * POST /templates/sync: every catalogue of the active inboxes read and stored now; 422 when
   * none has one, 503 naming each that failed (the others are stored).
   */
  async syncNow(): Promise<SyncResponse> {
    const sources = sourcesOf(await this.inboxes.catalogues(this.database.db));
    if (sources.length === 0) {
      throw new UnprocessableEntityException(
        'There is no template catalogue to sync: no active inbox has a business account (MESSAGING_BUSINESS_ACCOUNT_ID for the default one); template sends are not checked',
      );
    }
    let synced = 0;
    const failures: string[] = [];
    for (const { catalogue, inboxId } of sources) {
      try {
        synced += await this.syncOutsideJob({ catalogue, inboxId });
      } catch (error) {
        this.logger.warn(`Template sync of ${nameOf(catalogue)} failed: ${(error as Error).message}`);
        failures.push(`${nameOf(catalogue)}: ${(error as Error).message}`);
      }
    }
    if (failures.length > 0) {
      throw new ServiceUnavailableException(`The template catalogue could not be read from the channel (${failures.join('; ')})`);
    }
    return { synced };
  }

  /**
   * Reads every page of one catalogue through the channel of an inbox that has it, and stores it in
   * one transaction: new and changed templates written, unchanged ones left as they are, and those
   * the account no longer has marked DELETED (kept, so a send of one is refused naming why, and
   * its id stays valid). Answers how many templates the account has. Throws, storing nothing,
   * when the channel fails. `attempt` is the sync's claim on the catalogue's row: when a later one
   * was claimed while this one read (a webhook asked for a sync meanwhile), this one's older read
   * is not stored, so it cannot overwrite what the later one stores.
   */
  async sync(catalogue: string, channel: ChannelClient, attempt: number): Promise<number> {
    // The inbox's row and its channel disagree only while the settings of the default inbox are being written at start: tried again later.
    if (channel.catalogue !== catalogue) throw new Error(`The inbox's channel reads another catalogue than ${nameOf(catalogue)} now`);
    // The channel's strings may hold what PostgreSQL cannot store (NUL): replaced, like inbound text.
    const fetched = toStorable(await channel.listTemplates());
    const byKey = new Map<string, SyncedTemplate>();
    for (const template of fetched) byKey.set(JSON.stringify([template.name, template.language]), this.toRow(catalogue, template));
    const templates = [...byKey.values()];
    const now = new Date();
    const deleted = await this.database.transaction(async (db) => {
      if (!(await this.templates.holdsLatestClaim(db, catalogue, attempt))) return null;
      await this.templates.upsert(db, templates, now);
      return this.templates.markDeletedExcept(
        db,
        catalogue,
        templates.map(({ name, language }) => ({ name, language })),
        now,
      );
    });
    if (deleted === null) {
      this.logger.log(`Template sync of ${nameOf(catalogue)}: a later sync was started while this one read; it stores the catalogue`);
      return templates.length;
    }
    this.syncedCatalogues.add(catalogue);
    this.logger.log(
      `Synced ${templates.length} template(s) of ${nameOf(catalogue)}${deleted > 0 ? `; ${deleted} no longer there, marked DELETED` : ''}`,
    );
    return templates.length;
  }

  /**
   * The check of a template send in a conversation of this inbox, before it is queued: 422 for a
   * name and language its catalogue does not have, a status other than APPROVED, or components
   * that do not fit the definition (each naming the problem). Unchecked when the inbox has no
   * catalogue (or cannot send: the send answers why), or while no sync of it has ever succeeded
   * and one tried now fails.
   */
  async checkSend(template: TemplateToSend, inboxId: string): Promise<void> {
    const catalogue = (await this.inboxes.catalogues(this.database.db)).find((inbox) => inbox.inboxId === inboxId)?.catalogue;
    if (catalogue === undefined) return;
    const db = this.database.db;
    let row = await this.templates.findByNameAndLanguage(db, catalogue, template.name, template.language);
    if (!row && !(await this.isSynced(db, catalogue))) {
      if (!(await this.syncOnce(catalogue))) return;
      row = await this.templates.findByNameAndLanguage(db, catalogue, template.name, template.language);
    }
    const which = `${template.name} (${template.language})`;
    if (!row) {
      const languages = await this.templates.languagesOf(db, catalogue, template.name);
      throw new UnprocessableEntityException(
        languages.length > 0
          ? `Template ${template.name} has no language ${template.language} in the catalogue (it has ${languages.join(', ')})`
          : `Template ${which} is not in the catalogue of ${nameOf(catalogue)}`,
      );
    }
    if (row.status !== SENDABLE_STATUS) {
      throw new UnprocessableEntityException(`Template ${which} is ${row.status}: only ${SENDABLE_STATUS} templates can be sent`);
    }
    const problem = sendProblem(row, template.components);
    if (problem) throw new UnprocessableEntityException(`Template ${which}: ${problem}`);
  }

  /** The catalogue's definition of a template an inbox sends, for a preview of it filled; null when the inbox reads no catalogue or it lacks the template. */
  async definitionFor(template: TemplateToSend, inboxId: string): Promise<TemplateDefinition | null> {
    const catalogue = (await this.inboxes.catalogues(this.database.db)).find((inbox) => inbox.inboxId === inboxId)?.catalogue;
    if (catalogue === undefined) return null;
    return this.templates.findByNameAndLanguage(this.database.db, catalogue, template.name, template.language);
  }

  /** Whether any catalogue an active inbox reads has the template (in any status): automation turns off a rule only when none has. */
  async inAnyCatalogue(template: TemplateToSend): Promise<boolean> {
    const db = this.database.db;
    const catalogues = new Set((await this.inboxes.catalogues(db)).map((inbox) => inbox.catalogue));
    for (const catalogue of catalogues)
      if (await this.templates.findByNameAndLanguage(db, catalogue, template.name, template.language)) return true;
    return false;
  }

  /**
   * A change the channel webhook reported, in the caller's (the webhook's) transaction, to the
   * catalogue of its business account: a status or category set at once, and a sync of that
   * catalogue made due, so the rest of what changed follows. While the default inbox is the
   * sandbox it takes every change, as it takes every number's messages. A change of an account no
   * active inbox has is left: an inbox made for it later syncs the whole catalogue as it is then.
   */
  async applyChannelChange(db: Db, change: TemplateChange): Promise<void> {
    const inUse = new Set((await this.inboxes.catalogues(db)).map((inbox) => inbox.catalogue));
    const catalogue =
      change.businessAccountId !== null && inUse.has(change.businessAccountId)
        ? change.businessAccountId
        : inUse.has(SANDBOX_CATALOGUE)
          ? SANDBOX_CATALOGUE
          : null;
    const template = { ...change.template, language: change.template.language?.replace(/-/g, '_') ?? null };
    const named = template.name ? `${template.name} (${template.language ?? '?'})` : `with channel id ${template.channelTemplateId}`;
    if (catalogue === null) {
      this.logger.warn(
        `Channel webhook: a change of template ${named} of business account ${change.businessAccountId ?? '(none named)'}, which no active inbox has: left`,
      );
      return;
    }
    if (change.kind === 'status') {
      const status = STATUS_OF_EVENT[change.event.toUpperCase()];
      if (status && (await this.templates.setField(db, catalogue, template, 'status', status, new Date())) > 0) {
        this.logger.log(
          `Template ${named} is now ${status} (channel event ${change.event}${change.reason ? `, reason ${change.reason}` : ''})`,
        );
      }
    } else if ((await this.templates.setField(db, catalogue, template, 'category', change.category, new Date())) > 0) {
      this.logger.log(`Template ${named} is now in category ${change.category}`);
    }
    await this.templates.makeSyncDue(db, catalogue);
  }

  // --- The syncs as recorded work: the relay hands each due sync to the template.sync job.

  /** At start and when an inbox changed: the sync of every catalogue in use due now (not waited for: its job runs it, and logs and retries a failure). */
  async requestSync(): Promise<void> {
    const db = this.database.db;
    for (const { catalogue } of sourcesOf(await this.inboxes.catalogues(db))) await this.templates.makeSyncDue(db, catalogue);
  }

  /**
   * One attempt of the catalogue's sync, through an active inbox that reads it; answers false when
   * none does any more (the sync is then parked until one does).
   */
  async syncCatalogue(catalogue: string, attempt: number): Promise<boolean> {
    const source = await this.sourceOf(catalogue);
    if (!source) return false;
    await this.sync(catalogue, await this.channels.of(source.inboxId), attempt);
    return true;
  }

  /** A sync succeeded: recorded, and the next one due at `nextAt`. */
  async recordSynced(catalogue: string, attempt: number, nextAt: Date): Promise<void> {
    await this.templates.recordSynced(this.database.db, catalogue, attempt, nextAt);
  }

  /** The attempt failed: the next one is due at `nextAt`. */
  async recordSyncFailed(catalogue: string, attempt: number, error: string, nextAt: Date): Promise<void> {
    await this.templates.recordSyncFailed(this.database.db, catalogue, attempt, error, nextAt);
  }

  /** No active inbox reads the catalogue: its sync waits until one does. */
  async parkSync(catalogue: string, attempt: number): Promise<void> {
    await this.templates.parkSync(this.database.db, catalogue, attempt);
  }

  private toRow(catalogue: string, template: ChannelTemplate): SyncedTemplate {
    return {
      id: newUuid(),
      catalogue,
      name: template.name,
      language: template.language,
      channel_template_id: template.id,
      category: template.category,
      status: template.status,
      parameter_format: template.parameter_format,
      components: template.components,
      parameters: parametersOf(template),
    };
  }

  private async isSynced(db: Db, catalogue: string): Promise<boolean> {
    if (!this.syncedCatalogues.has(catalogue) && (await this.templates.findSync(db, catalogue))?.synced_at != null) {
      this.syncedCatalogues.add(catalogue);
    }
    return this.syncedCatalogues.has(catalogue);
  }

  /** A sync for a send that found no catalogue yet, claimed as an attempt of its own; false when no active inbox reads it. */
  private async firstSync(catalogue: string): Promise<boolean> {
    const source = await this.sourceOf(catalogue);
    if (!source) return false;
    await this.syncOutsideJob(source);
    return true;
  }

  /** The active inbox whose channel reads the catalogue (the default inbox when it does); undefined: none does. */
  private async sourceOf(catalogue: string): Promise<InboxCatalogue | undefined> {
    return sourcesOf(await this.inboxes.catalogues(this.database.db)).find((inbox) => inbox.catalogue === catalogue);
  }

  /** A sync asked for outside the job (POST /templates/sync, a send's first sync): claimed as an attempt of its own, recorded when it succeeded. */
  private async syncOutsideJob({ catalogue, inboxId }: InboxCatalogue): Promise<number> {
    const attempt = await this.templates.claimOutsideJob(this.database.db, catalogue);
    const synced = await this.sync(catalogue, await this.channels.of(inboxId), attempt);
    await this.templates.recordSynced(this.database.db, catalogue, null, null);
    return synced;
  }

  /** firstSync once per catalogue and process: a failure leaves its sends unchecked until the job's sync succeeds. */
  private syncOnce(catalogue: string): Promise<boolean> {
    let first = this.firstSyncs.get(catalogue);
    if (!first) {
      first = this.firstSync(catalogue).catch((error: unknown) => {
        this.logger.warn(`Template sync of ${nameOf(catalogue)} failed: ${(error as Error).message}`);
        return false;
      });
      this.firstSyncs.set(catalogue, first);
    }
    return first;
  }
}

/** Each catalogue once, with the inbox whose channel reads it (the first: the default inbox when it has it). */
function sourcesOf(catalogues: InboxCatalogue[]): InboxCatalogue[] {
  const byCatalogue = new Map<string, InboxCatalogue>();
  for (const inbox of catalogues) if (!byCatalogue.has(inbox.catalogue)) byCatalogue.set(inbox.catalogue, inbox);
  return [...byCatalogue.values()];
}

/** A catalogue as logs and answers name it. */
function nameOf(catalogue: string): string {
  return catalogue === SANDBOX_CATALOGUE ? 'the sandbox' : `business account ${catalogue}`;
}

import { Injectable, Logger, NotFoundException, ServiceUnavailableException, UnprocessableEntityException } from '@nestjs/common';
import { newUuid } from '../common/ids';
import { mapPage, type Page } from '../common/pagination';
import { toStorable } from '../common/storable-text';
import { Database } from '../database/database';
import { ChannelClient, type ChannelTemplate } from '../channel/channel-client';
import type { Db } from '../database/sql';
import { parametersOf, sendProblem } from './template-parameters';
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
 * The template catalogue: synced from the channel (every page), listed with what each send must
 * fill, and the check of every template send before it is queued. Without a source (a real
 * channel without MESSAGING_BUSINESS_ACCOUNT_ID) there is no catalogue and sends are not checked.
 * The channel is the source when it has a catalogue (the sandbox's own, or the business account's).
 */
@Injectable()
export class TemplatesService {
  private readonly logger = new Logger(TemplatesService.name);
  private readonly source: ChannelClient | null;
  /** Once a sync is known to have succeeded, sends are checked against the stored catalogue. */
  private catalogueSynced = false;
  /** The sync a send runs when no sync ever succeeded, once per process. */
  private firstSync: Promise<boolean> | null = null;

  constructor(
    private readonly database: Database,
    private readonly templates: TemplateRepository,
    channel: ChannelClient,
  ) {
    this.source = channel.hasTemplateCatalogue ? channel : null;
  }

  get hasCatalogue(): boolean {
    return this.source !== null;
  }

  async list(query: ListTemplatesQuery): Promise<Page<TemplateResponse>> {
    const page = await this.templates.list(this.database.db, { status: query.status, language: query.language, q: query.q }, query);
    return mapPage(page, TemplateResponse.of);
  }

  async get(id: string): Promise<TemplateResponse> {
    const row = await this.templates.find(this.database.db, id);
    if (!row) throw new NotFoundException('Template not found');
    return TemplateResponse.of(row);
  }

  /** POST /templates/sync: the whole catalogue read and stored now; 422 without a catalogue, 503 when the channel fails. */
  async syncNow(): Promise<SyncResponse> {
    if (!this.source) {
      throw new UnprocessableEntityException(
        'There is no template catalogue to sync: MESSAGING_BUSINESS_ACCOUNT_ID is not set (template sends are not checked)',
      );
    }
    let synced: number;
    try {
      synced = await this.sync();
    } catch (error) {
      this.logger.warn(`Template sync failed: ${(error as Error).message}`);
      throw new ServiceUnavailableException(`The template catalogue could not be read from the channel: ${(error as Error).message}`);
    }
    await this.templates.recordSynced(this.database.db, null, new Date());
    return { synced };
  }

  /**
   * Reads every page of the catalogue and stores it in one transaction: new and changed templates
   * written, unchanged ones left as they are, and those the account no longer has marked DELETED
   * (kept, so a send of one is refused naming why, and its id stays valid). Answers how many
   * templates the account has. Throws, storing nothing, when the channel fails.
   */
  async sync(): Promise<number> {
    if (!this.source) return 0;
    // The channel's strings may hold what PostgreSQL cannot store (NUL): replaced, like inbound text.
    const fetched = toStorable(await this.source.listTemplates());
    const byKey = new Map<string, SyncedTemplate>();
    for (const template of fetched) byKey.set(JSON.stringify([template.name, template.language]), this.toRow(template));
    const templates = [...byKey.values()];
    const now = new Date();
    const deleted = await this.database.transaction(async (db) => {
      await this.templates.upsert(db, templates, now);
      return this.templates.markDeletedExcept(
        db,
        templates.map(({ name, language }) => ({ name, language })),
        now,
      );
    });
    this.catalogueSynced = true;
    this.logger.log(
      `Synced ${templates.length} template(s) from the channel${deleted > 0 ? `; ${deleted} no longer there, marked DELETED` : ''}`,
    );
    return templates.length;
  }

  /**
   * The check of a template send, before it is queued: 422 for a name and language the catalogue
   * does not have, a status other than APPROVED, or components that do not fit the definition
   * (each naming the problem). Unchecked without a catalogue, or while no sync has ever succeeded
   * and one tried now fails.
   */
  async checkSend(template: TemplateToSend): Promise<void> {
    if (!this.source) return;
    const db = this.database.db;
    let row = await this.templates.findByNameAndLanguage(db, template.name, template.language);
    if (!row && !(await this.isSynced(db))) {
      if (!(await this.syncOnce())) return;
      row = await this.templates.findByNameAndLanguage(db, template.name, template.language);
    }
    const which = `${template.name} (${template.language})`;
    if (!row) {
      const languages = await this.templates.languagesOf(db, template.name);
      throw new UnprocessableEntityException(
        languages.length > 0
          ? `Template ${template.name} has no language ${template.language} in the catalogue (it has ${languages.join(', ')})`
          : `Template ${which} is not in the catalogue of the business account`,
      );
    }
    if (row.status !== SENDABLE_STATUS) {
      throw new UnprocessableEntityException(`Template ${which} is ${row.status}: only ${SENDABLE_STATUS} templates can be sent`);
    }
    const problem = sendProblem(row, template.components);
    if (problem) throw new UnprocessableEntityException(`Template ${which}: ${problem}`);
  }

  /**
   * A change the channel webhook reported, in the caller's (the webhook's) transaction: a status
   * or category set at once, and a sync made due, so the rest of what changed follows.
   */
  async applyChannelChange(db: Db, change: TemplateChange): Promise<void> {
    const template = { ...change.template, language: change.template.language?.replace(/-/g, '_') ?? null };
    const named = template.name ? `${template.name} (${template.language ?? '?'})` : `with channel id ${template.channelTemplateId}`;
    if (change.kind === 'status') {
      const status = STATUS_OF_EVENT[change.event.toUpperCase()];
      if (status && (await this.templates.setField(db, template, 'status', status, new Date())) > 0) {
        this.logger.log(
          `Template ${named} is now ${status} (channel event ${change.event}${change.reason ? `, reason ${change.reason}` : ''})`,
        );
      }
    } else if ((await this.templates.setField(db, template, 'category', change.category, new Date())) > 0) {
      this.logger.log(`Template ${named} is now in category ${change.category}`);
    }
    if (this.source) await this.templates.makeSyncDue(db);
  }

  // --- The sync as recorded work: the relay hands the due sync to the template.sync job.

  /** At start: a sync due now (not waited for: its job runs it, and logs and retries a failure). */
  async requestSync(): Promise<void> {
    if (this.source) await this.templates.makeSyncDue(this.database.db);
  }

  /** A sync succeeded: recorded, and the next one due at `nextAt`. */
  async recordSynced(attempt: number, nextAt: Date): Promise<void> {
    await this.templates.recordSynced(this.database.db, attempt, nextAt);
  }

  /** The attempt failed: the next one is due at `nextAt`. */
  async recordSyncFailed(attempt: number, error: string, nextAt: Date): Promise<void> {
    await this.templates.recordSyncFailed(this.database.db, attempt, error, nextAt);
  }

  private toRow(template: ChannelTemplate): SyncedTemplate {
    return {
      id: newUuid(),
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

  private async isSynced(db: Db): Promise<boolean> {
    if (!this.catalogueSynced) this.catalogueSynced = (await this.templates.findSync(db))?.synced_at != null;
    return this.catalogueSynced;
  }

  /** A sync for a send that found no catalogue yet; once per process: a failure leaves sends unchecked until the job's sync succeeds. */
  private syncOnce(): Promise<boolean> {
    this.firstSync ??= this.syncNow().then(
      () => true,
      () => false,
    );
    return this.firstSync;
  }
}

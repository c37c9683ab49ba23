import {
  BadRequestException,
  BeforeApplicationShutdown,
  ConflictException,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
  UnprocessableEntityException,
} from '@nestjs/common';
import { stringify } from 'csv-stringify';
import { pipeline, Readable } from 'node:stream';
import { AuditLogService } from '../audit/audit-log.service';
import type { AuditAction } from '../audit/audit-entry.entity';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { mapPage, Page, PageQuery } from '../common/pagination';
import { PeriodicTask } from '../common/periodic-task';
import { ConversationsService } from '../conversations/conversations.service';
import { automaticTemplateProblem, MessagesService } from '../conversations/messages.service';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { textCell } from '../contacts/contact-csv';
import { EventsService } from '../events/events.service';
import { InboxesService } from '../inboxes/inboxes.service';
import { templateTextOf } from '../templates/template-parameters';
import { TemplatesService, type TemplateToSend } from '../templates/templates.service';
import type { UserRow } from '../users/user.entity';
import { fillFor } from './campaign-parameters';
import {
  audienceOf,
  CampaignPreviewResponse,
  CampaignRecipientResponse,
  CampaignResponse,
  CampaignSampleResponse,
  CreateCampaignDto,
  DEFAULT_RATE_PER_SECOND,
  ListRecipientsQuery,
  PreviewCampaignDto,
  ScheduleCampaignDto,
  UpdateCampaignDto,
} from './campaign.dto';
import { NO_TOTALS, type CampaignAudience, type CampaignRow, type PendingRecipient, type RecipientOutcome } from './campaign.entity';
import { CampaignEvent } from './campaign.events';
import { CampaignRepository, type PaceWindow, type RecipientFilter } from './campaign.repository';

/** A step runs about this often while a campaign sends; each takes a quarter of a second's sends at most, so the pace is smooth. */
const STEP_EVERY_MS = 100;
const SENDS_PER_STEP_OF_RATE = 1 / 4;
/** While only the last messages are still being sent, the campaign looks again this often to complete. */
const SETTLING_EVERY_MS = 250;
/** How often the totals' ledger is folded and the campaigns whose totals moved are told to the stream and the webhooks. */
const FOLD_EVERY_MS = 2_000;
const SAMPLES = 3;
/** Recipients read per statement of the CSV. */
const CSV_PAGE = 1000;

/**
 * Campaigns: a template sent to an audience through one inbox, paced, as recorded work.
 *
 * A campaign waits in `campaigns` while it is scheduled or running; the `campaign.dispatch` work
 * runs one step of it at a time (the engine's claim: one step of a campaign at once on all
 * replicas). The first step, at `scheduled_at`, builds the recipient list in one statement; each
 * later one, in one transaction holding the campaign row, queues the next recipients' messages
 * through the conversations module (their send is the `message.send` work of any message) and
 * records each recipient's outcome. So a recipient is queued once: the message and the
 * recipient's change commit together, and a crash before the commit leaves both undone.
 *
 * The pace: at any moment, the campaign's messages still being sent plus those whose send ended
 * within the last second are at most `rate_per_second`. The channel therefore never takes more
 * than that many in any one second, whatever the latency; a send the channel asks to slow down
 * (130429, 131056) stays in flight until its retry succeeds, and so holds its place in the pace.
 */
@Injectable()
export class CampaignsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(CampaignsService.name);
  private readonly folding = new PeriodicTask({
    name: 'campaign-totals',
    run: () => this.foldTotals(),
    everyMs: () => FOLD_EVERY_MS,
    failed: (error) => this.logger.warn(`Campaign totals not folded, trying again: ${error.message}`),
  });

  constructor(
    private readonly database: Database,
    private readonly campaigns: CampaignRepository,
    private readonly events: EventsService,
    private readonly inboxes: InboxesService,
    private readonly templates: TemplatesService,
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
    private readonly audit: AuditLogService,
  ) {}

  onApplicationBootstrap(): void {
    this.folding.start(FOLD_EVERY_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.folding.stop();
  }

  async list(page: PageQuery): Promise<Page<CampaignResponse>> {
    const db = this.database.db;
    const rows = await this.campaigns.list(db, page);
    const totals = await this.campaigns.totals(
      db,
      rows.data.map((row) => row.id),
    );
    return mapPage(rows, (row) => CampaignResponse.of(row, totals.get(row.id) ?? NO_TOTALS));
  }

  async get(id: string): Promise<CampaignResponse> {
    const db = this.database.db;
    return this.present(db, await this.existing(db, id));
  }

  async create(dto: CreateCampaignDto, actor: UserRow): Promise<CampaignResponse> {
    const audience = audienceOf(dto.audience);
    assertNamesSomeone(audience);
    const inboxId = await this.sendingInbox(dto.inbox_id);
    await this.checkTemplate(templateOf(dto.template), inboxId);
    const now = new Date();
    const row: CampaignRow = {
      id: newUuid(now.getTime()),
      name: dto.name,
      inbox_id: inboxId,
      template: templateOf(dto.template),
      audience,
      scheduled_at: dto.scheduled_at ? new Date(dto.scheduled_at) : null,
      rate_per_second: dto.rate_per_second ?? DEFAULT_RATE_PER_SECOND,
      status: 'draft',
      status_reason: null,
      created_by: actor.id,
      started_at: null,
      finished_at: null,
      attempts: 0,
      next_attempt_at: null,
      failures: 0,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    return this.database.transaction(async (db) => {
      await this.campaigns.insert(db, row);
      await this.audited(db, 'campaign.created', row, { name: row.name });
      return this.record(db, 'campaign.created', row);
    });
  }

  /** An edit: the name and the pace until it ends; what it sends, to whom and when only before it starts (409). */
  async update(id: string, dto: UpdateCampaignDto): Promise<CampaignResponse> {
    const changesWhat =
      dto.inbox_id !== undefined || dto.template !== undefined || dto.audience !== undefined || dto.scheduled_at !== undefined;
    const before = await this.existing(this.database.db, id);
    const inboxId = dto.inbox_id === undefined ? before.inbox_id : await this.sendingInbox(dto.inbox_id);
    const template = dto.template === undefined ? before.template : templateOf(dto.template);
    if (dto.inbox_id !== undefined || dto.template !== undefined) await this.checkTemplate(template, inboxId);
    return this.database.transaction(async (db) => {
      const row = await this.existing(db, id, true);
      // What was checked above was read before the lock: another change since would be undone, or left unchecked.
      if (row.updated_at.getTime() !== before.updated_at.getTime())
        throw new ConflictException('The campaign changed while this change was checked: read it again and retry');
      if (row.status === 'completed' || row.status === 'cancelled')
        throw new ConflictException(`The campaign is ${row.status}: it cannot change`);
      if (changesWhat && row.started_at !== null)
        throw new ConflictException('The campaign has started: only its name and rate_per_second can change');
      const now = new Date();
      Object.assign(row, {
        name: dto.name ?? row.name,
        inbox_id: inboxId,
        template,
        audience: dto.audience === undefined ? row.audience : audienceOf(dto.audience),
        scheduled_at: dto.scheduled_at === undefined ? row.scheduled_at : dto.scheduled_at ? new Date(dto.scheduled_at) : null,
        rate_per_second: dto.rate_per_second ?? row.rate_per_second,
        updated_at: now,
      });
      assertNamesSomeone(row.audience);
      if (row.status === 'scheduled') row.next_attempt_at = startAt(row.scheduled_at, now);
      await this.campaigns.update(db, row);
      const changed = (['name', 'inbox_id', 'template', 'audience', 'scheduled_at', 'rate_per_second'] as const).filter(
        (field) => dto[field] !== undefined,
      );
      await this.audited(db, 'campaign.updated', row, { changed });
      return this.record(db, 'campaign.updated', row);
    });
  }

  /** Deletes a campaign that is not under way (409: cancel it first), with its recipient list; the messages it sent stay. */
  async remove(id: string): Promise<void> {
    await this.database.transaction(async (db) => {
      const row = await this.existing(db, id, true);
      if (['scheduled', 'running', 'paused'].includes(row.status))
        throw new ConflictException(`The campaign is ${row.status}: cancel it before deleting it`);
      const event = await this.present(db, row);
      await this.campaigns.remove(db, id);
      await this.audited(db, 'campaign.deleted', row, { name: row.name });
      await this.events.record(db, 'campaign.deleted', CampaignEvent.of(event), { inboxId: row.inbox_id });
    });
  }

  /** A draft is scheduled: it starts at `scheduled_at` (the one given, else its own), at once without one or when it has passed. */
  async schedule(id: string, dto: ScheduleCampaignDto): Promise<CampaignResponse> {
    const before = await this.existing(this.database.db, id);
    await this.assertSendable(before);
    return this.database.transaction(async (db) => {
      const row = await this.existing(db, id, true);
      if (row.status !== 'draft') throw new ConflictException(`Only a draft can be scheduled; the campaign is ${row.status}`);
      const now = new Date();
      if (dto.scheduled_at !== undefined) row.scheduled_at = dto.scheduled_at ? new Date(dto.scheduled_at) : null;
      Object.assign(row, { status: 'scheduled', status_reason: null, next_attempt_at: startAt(row.scheduled_at, now), updated_at: now });
      await this.campaigns.update(db, row);
      await this.audited(db, 'campaign.scheduled', row, { scheduled_at: row.scheduled_at?.toISOString() ?? null });
      return this.record(db, 'campaign.updated', row);
    });
  }

  /** Stops sending at once (a message already handed to the channel still goes); scheduled or running. */
  async pause(id: string): Promise<CampaignResponse> {
    return this.database.transaction(async (db) => {
      const row = await this.existing(db, id, true);
      if (row.status !== 'running' && row.status !== 'scheduled')
        throw new ConflictException(`Only a scheduled or running campaign can be paused; the campaign is ${row.status}`);
      Object.assign(row, { status: 'paused', status_reason: null, next_attempt_at: null, updated_at: new Date() });
      await this.campaigns.update(db, row);
      await this.audited(db, 'campaign.paused', row);
      return this.record(db, 'campaign.updated', row);
    });
  }

  /** A paused campaign goes on where it stopped: running again, or scheduled when it had not started. */
  async resume(id: string): Promise<CampaignResponse> {
    const before = await this.existing(this.database.db, id);
    await this.assertSendable(before);
    return this.database.transaction(async (db) => {
      const row = await this.existing(db, id, true);
      if (row.status !== 'paused') throw new ConflictException(`Only a paused campaign can be resumed; the campaign is ${row.status}`);
      const now = new Date();
      Object.assign(row, {
        status: row.started_at ? 'running' : 'scheduled',
        status_reason: null,
        next_attempt_at: row.started_at ? now : startAt(row.scheduled_at, now),
        failures: 0,
        updated_at: now,
      });
      await this.campaigns.update(db, row);
      await this.audited(db, 'campaign.resumed', row);
      return this.record(db, 'campaign.updated', row);
    });
  }

  /** Ends it for good: the recipients not sent to yet are skipped (a message already handed to the channel still goes). */
  async cancel(id: string): Promise<CampaignResponse> {
    return this.database.transaction(async (db) => {
      const row = await this.existing(db, id, true);
      if (row.status === 'completed' || row.status === 'cancelled') throw new ConflictException(`The campaign is ${row.status} already`);
      const now = new Date();
      await this.campaigns.skipPending(db, row.id, 'the campaign was cancelled');
      Object.assign(row, { status: 'cancelled', status_reason: null, next_attempt_at: null, finished_at: now, updated_at: now });
      await this.campaigns.update(db, row);
      await this.audited(db, 'campaign.cancelled', row);
      return this.record(db, 'campaign.updated', row);
    });
  }

  async recipients(id: string, query: ListRecipientsQuery): Promise<Page<CampaignRecipientResponse>> {
    const db = this.database.db;
    await this.existing(db, id);
    return mapPage(await this.campaigns.recipients(db, id, query.status, query), CampaignRecipientResponse.of);
  }

  /**
   * The recipients as CSV, streamed in send order one page per statement as the client reads, so
   * memory holds one page whatever the list's size. Cells a spreadsheet would run are kept as text.
   */
  async recipientsCsv(id: string, status: RecipientFilter | undefined): Promise<Readable> {
    await this.existing(this.database.db, id);
    const rows = Readable.from(this.recipientRecords(id, status));
    return pipeline(rows, stringify(), (error) => {
      if ((error as NodeJS.ErrnoException | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.warn('The client left before the recipients export ended');
    });
  }

  private async *recipientRecords(id: string, status: RecipientFilter | undefined): AsyncGenerator<string[]> {
    yield ['contact_id', 'name', 'phone', 'wa_user_id', 'status', 'reason', 'error_code', 'message_id', 'replied_at', 'updated_at'];
    let after = 0;
    for (;;) {
      const rows = await this.campaigns.recipientsAfter(this.database.db, id, status, after, CSV_PAGE);
      for (const row of rows) {
        const recipient = CampaignRecipientResponse.of(row);
        yield [
          recipient.contact?.id ?? '',
          textCell(recipient.contact?.name ?? ''),
          recipient.contact?.phone ?? '',
          recipient.contact?.wa_user_id ?? '',
          recipient.status,
          textCell(recipient.reason ?? ''),
          recipient.error_code === null ? '' : String(recipient.error_code),
          recipient.message_id ?? '',
          recipient.replied_at ?? '',
          recipient.updated_at,
        ];
      }
      if (rows.length < CSV_PAGE) return;
      after = rows[rows.length - 1].position;
    }
  }

  /** The audience's size now and the message as its first three contacts would read it, before anything is saved. */
  async preview(dto: PreviewCampaignDto): Promise<CampaignPreviewResponse> {
    const audience = audienceOf(dto.audience);
    assertNamesSomeone(audience);
    const inboxId = await this.sendingInbox(dto.inbox_id);
    const template = templateOf(dto.template);
    await this.checkTemplate(template, inboxId);
    const definition = await this.templates.definitionFor(template, inboxId);
    const db = this.database.db;
    const [size, samples] = await Promise.all([
      this.campaigns.countAudience(db, audience),
      this.campaigns.sampleAudience(db, audience, SAMPLES),
    ]);
    return {
      audience: size,
      samples: samples.map((contact) => {
        const decided = decide(contact, template);
        if ('skipped' in decided) return CampaignSampleResponse.of(contact, decided);
        const text = definition ? templateTextOf(definition, decided.filled.components) : `${template.name} (${template.language})`;
        return CampaignSampleResponse.of(contact, { text });
      }),
    };
  }

  /**
   * One step of a scheduled or running campaign (the `campaign.dispatch` work, claimed for its
   * attempt `attempts`): it starts, sends to the next recipients as the pace allows, pauses
   * itself when its template or inbox can no longer send, or completes.
   */
  async step(id: string, attempts: number): Promise<void> {
    const before = await this.campaigns.find(this.database.db, id);
    if (!before) return;
    const problem = await this.sendProblem(before);
    await this.database.transaction(async (db) => {
      const row = await this.campaigns.find(db, id, true);
      if (!row || row.attempts !== attempts || (row.status !== 'scheduled' && row.status !== 'running')) return;
      const now = new Date();
      row.failures = 0;
      row.last_error = null;
      row.updated_at = now;
      if (problem) {
        Object.assign(row, { status: 'paused', status_reason: problem, next_attempt_at: null });
        this.logger.warn(`Campaign ${row.id} paused itself: ${problem}`);
      } else if (row.status === 'scheduled') {
        await this.campaigns.resolveAudience(db, row.id, row.audience);
        Object.assign(row, { status: 'running', started_at: now, next_attempt_at: now });
      } else {
        const window = await this.campaigns.window(db, row.id);
        const room = Math.min(
          row.rate_per_second - window.in_flight - window.recent,
          Math.ceil(row.rate_per_second * SENDS_PER_STEP_OF_RATE),
        );
        if (!window.pending_left) {
          if (window.in_flight === 0) Object.assign(row, { status: 'completed', finished_at: now, next_attempt_at: null });
          else row.next_attempt_at = new Date(now.getTime() + SETTLING_EVERY_MS);
        } else if (room > 0) {
          const outcomes = await this.events.asAutomation(db, async () =>
            this.sendTo(db, row, await this.campaigns.pending(db, row.id, room), now),
          );
          await this.campaigns.recordOutcomes(db, row.id, outcomes);
          row.next_attempt_at = new Date(now.getTime() + STEP_EVERY_MS);
        } else {
          row.next_attempt_at = whenRoomFrees(window, now);
        }
      }
      await this.campaigns.update(db, row, true);
      if (row.status !== 'running' || row.started_at === now) await this.record(db, 'campaign.updated', row);
    });
  }

  /** A step failed (the database, a bug): the next is due at `at`. */
  async recordStepFailed(id: string, attempts: number, reason: string, at: Date): Promise<void> {
    this.logger.warn(`A step of campaign ${id} failed, next at ${at.toISOString()}: ${reason}`);
    await this.campaigns.recordStepFailed(this.database.db, id, attempts, reason, at);
  }

  /** Steps failed too often in a row: the campaign pauses with the reason, for an admin to resume. */
  async pauseAfterFailures(id: string, attempts: number, reason: string): Promise<void> {
    await this.database.transaction(async (db) => {
      const row = await this.campaigns.find(db, id, true);
      if (!row || row.attempts !== attempts || (row.status !== 'scheduled' && row.status !== 'running')) return;
      const now = new Date();
      Object.assign(row, { status: 'paused', status_reason: `Its steps kept failing: ${reason}`, next_attempt_at: null, updated_at: now });
      await this.campaigns.update(db, row);
      await this.record(db, 'campaign.updated', row);
    });
  }

  /** Folds the totals' ledger and tells the campaigns whose totals moved (`campaign.updated`): the console's progress, live. */
  async foldTotals(): Promise<void> {
    await this.database.transaction(async (db) => {
      for (const id of await this.campaigns.foldCounters(db)) {
        const row = await this.campaigns.find(db, id);
        if (row) await this.record(db, 'campaign.updated', row);
      }
    });
  }

  /**
   * Queues the campaign's message to each recipient through their conversation in its inbox
   * (opened, closed, when they have none: a campaign's message is no agent's work until the
   * customer answers), or skips them with the reason.
   */
  private async sendTo(db: Db, campaign: CampaignRow, recipients: PendingRecipient[], now: Date): Promise<RecipientOutcome[]> {
    const outcomes: RecipientOutcome[] = [];
    for (const recipient of recipients) {
      const decided = decide(recipient, campaign.template);
      if ('skipped' in decided) {
        outcomes.push({ position: recipient.position, skipped: decided.skipped });
        continue;
      }
      const { conversation } = await this.conversations.openForContact(db, recipient.contact_id!, now, {
        reopen: false,
        inboxId: campaign.inbox_id,
        status: 'closed',
      });
      const sent = await this.messages.queueAutomatic(
        db,
        conversation,
        { type: 'template', template: decided.filled },
        now,
        null,
        campaign.id,
      );
      outcomes.push(
        'queued' in sent
          ? { position: recipient.position, message_id: sent.queued.id }
          : { position: recipient.position, skipped: sent.skipped },
      );
    }
    return outcomes;
  }

  /** Why the campaign cannot send now (its inbox disabled or gone, its template not sendable from it), or null. */
  private async sendProblem(row: CampaignRow): Promise<string | null> {
    if (!(await this.inboxes.isActive(this.database.db, row.inbox_id))) return 'its inbox is disabled';
    try {
      await this.checkTemplate(row.template, row.inbox_id);
      return null;
    } catch (error) {
      if (error instanceof UnprocessableEntityException) return error.message;
      throw error;
    }
  }

  /**
   * A 422 unless the inbox can send the template as the campaign fills it: checked against its
   * catalogue like any template send, and its header media a link (an upload is not kept for a
   * campaign's time).
   */
  private async checkTemplate(template: TemplateToSend, inboxId: string): Promise<void> {
    const problem = automaticTemplateProblem(template);
    if (problem) throw new UnprocessableEntityException(`template: ${problem}`);
    await this.templates.checkSend(template, inboxId);
  }

  private async assertSendable(row: CampaignRow): Promise<void> {
    const problem = await this.sendProblem(row);
    if (problem) throw new UnprocessableEntityException(`The campaign cannot send: ${problem}`);
  }

  /** The uuid of an active inbox named by its public id, or a 422. */
  private async sendingInbox(publicId: string): Promise<string> {
    const id = parsePublicId('inb', publicId);
    if (id === null || !(await this.inboxes.isActive(this.database.db, id)))
      throw new UnprocessableEntityException('inbox_id does not name an active inbox');
    return id;
  }

  private async existing(db: Db, id: string, lock = false): Promise<CampaignRow> {
    const row = await this.campaigns.find(db, id, lock);
    if (!row) throw new NotFoundException('Campaign not found');
    return row;
  }

  private async present(db: Db, row: CampaignRow): Promise<CampaignResponse> {
    return CampaignResponse.of(row, (await this.campaigns.totals(db, [row.id])).get(row.id) ?? NO_TOTALS);
  }

  /** An admin's change of a campaign, in the audit log (the service's own changes, such as finishing, are not). */
  private async audited(
    db: Db,
    action: AuditAction & `campaign.${string}`,
    row: CampaignRow,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    await this.audit.record(db, action, { target: toPublicId('cmp', row.id), details });
  }

  private async record(db: Db, type: 'campaign.created' | 'campaign.updated', row: CampaignRow): Promise<CampaignResponse> {
    const response = await this.present(db, row);
    await this.events.record(db, type, CampaignEvent.of(response), { inboxId: row.inbox_id });
    return response;
  }
}

function templateOf(dto: TemplateToSend): TemplateToSend {
  return { name: dto.name, language: dto.language, ...(dto.components ? { components: dto.components } : {}) };
}

function assertNamesSomeone(audience: CampaignAudience): void {
  if (Object.keys(audience).length === 0)
    throw new BadRequestException('audience must name contacts (contact_ids) or at least one filter (tags, labels, attributes)');
}

/** When a campaign scheduled for `at` starts: then, or now when it has passed or there is none. */
function startAt(at: Date | null, now: Date): Date {
  return at && at > now ? at : now;
}

/** The pace is full: room frees when the oldest send of the last second is a second old, or soon when only sends in flight fill it. */
function whenRoomFrees(window: PaceWindow, now: Date): Date {
  if (window.recent === 0 || window.oldest_recent === null) return new Date(now.getTime() + STEP_EVERY_MS);
  return new Date(Math.max(now.getTime() + 10, window.oldest_recent.getTime() + 1_000));
}

/** Whether a recipient is sent to, and with what: skipped when deleted, opted out, blocked, or missing a value the template needs. */
function decide(recipient: PendingRecipient, template: TemplateToSend): { filled: TemplateToSend } | { skipped: string } {
  if (recipient.contact_id === null) return { skipped: 'the contact was deleted' };
  if (recipient.opted_out_at) return { skipped: 'opted out' };
  if (recipient.blocked_at) return { skipped: 'blocked' };
  if (!template.components) return { filled: template };
  const filled = fillFor(template.components, recipient);
  if ('missing' in filled) return { skipped: `no value for ${filled.missing}` };
  return { filled: { ...template, components: filled.filled } };
}

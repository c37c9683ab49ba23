import { BadRequestException, Injectable, Logger, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { mapPage, type Page, type PageQuery } from '../common/pagination';
import { ContactsService } from '../contacts/contacts.service';
import { ConversationsService } from '../conversations/conversations.service';
import { Database } from '../database/database';
import { isDatabaseUnavailable, isDeadlock } from '../database/errors';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import { isOpenAt } from '../inboxes/business-hours';
import { InboxesService } from '../inboxes/inboxes.service';
import { ActionsService } from './actions.service';
import type { RuleRow, TriggerRow } from './rule.entity';
import { CreateRuleDto, RuleResponse, RuleRunResponse, UpdateRuleDto } from './rule.dto';
import { RuleRepository } from './rule.repository';
import { conditionsHold, type RuleFacts } from './rule-logic';

/** Why a rule's template cannot be sent in the conversation's inbox; `disables`: no inbox can send it. */
interface TemplateProblem {
  reason: string;
  disables: boolean;
}

/** Rules are written by hand, one by one: more than this is a mistake (and each event reads them all). */
const MAX_RULES = 200;

/**
 * Automation rules: their CRUD (admins), and their runs. The relay records a trigger for each
 * event rules run on, in the transaction that relays the event; its run (RuleRunner, recorded
 * work) evaluates every enabled rule of the event in order and does the actions of those whose
 * conditions hold, in one transaction that also logs each rule's run and deletes the trigger. A
 * crash before that commit leaves the trigger due again and nothing done; after it, nothing left
 * to do: each rule acts once per trigger. The actions' own events are `automated`, so they start
 * no rule.
 */
@Injectable()
export class RulesService {
  private readonly logger = new Logger(RulesService.name);

  constructor(
    private readonly database: Database,
    private readonly rules: RuleRepository,
    private readonly actions: ActionsService,
    private readonly conversations: ConversationsService,
    private readonly contacts: ContactsService,
    private readonly inboxes: InboxesService,
    private readonly events: EventsService,
    private readonly audit: AuditLogService,
  ) {}

  async list(): Promise<Page<RuleResponse>> {
    return { data: (await this.rules.list(this.database.db)).map((row) => RuleResponse.of(row)), next_cursor: null };
  }

  async get(id: string): Promise<RuleResponse> {
    return RuleResponse.of(await this.found(this.database.db, id));
  }

  async create(dto: CreateRuleDto): Promise<RuleResponse> {
    return this.database.transaction(async (db) => {
      if ((await this.rules.countForInsert(db)) >= MAX_RULES)
        throw new UnprocessableEntityException(`There are ${MAX_RULES} rules already`);
      await this.actions.assertNamesExist(db, dto.actions);
      const now = new Date();
      const rule: RuleRow = {
        id: newUuid(now.getTime()),
        name: dto.name,
        enabled: dto.enabled ?? true,
        event: dto.event,
        conditions: dto.conditions,
        actions: dto.actions,
        position: dto.position ?? (await this.rules.nextPosition(db)),
        disabled_reason: null,
        created_at: now,
        updated_at: now,
      };
      if (dto.position !== undefined) await this.rules.makeRoomAt(db, dto.position, rule.id);
      await this.rules.insert(db, rule);
      await this.audit.record(db, 'rule.created', { target: toPublicId('rule', rule.id), details: { name: rule.name } });
      return RuleResponse.of(rule);
    });
  }

  async update(id: string, dto: UpdateRuleDto): Promise<RuleResponse> {
    const fields = (['name', 'enabled', 'event', 'conditions', 'actions', 'position'] as const).filter((field) => dto[field] !== undefined);
    if (fields.length === 0) throw new BadRequestException('Body must contain name, enabled, event, conditions, actions or position');
    return this.database.transaction(async (db) => {
      const rule = await this.found(db, id, true);
      if (dto.actions) await this.actions.assertNamesExist(db, dto.actions);
      const enabled = dto.enabled ?? rule.enabled;
      const changed: RuleRow = {
        ...rule,
        name: dto.name ?? rule.name,
        enabled,
        event: dto.event ?? rule.event,
        conditions: dto.conditions ?? rule.conditions,
        actions: dto.actions ?? rule.actions,
        position: dto.position ?? rule.position,
        // Turned on again (or off by an admin): the service's reason no longer describes it.
        disabled_reason: dto.enabled !== undefined ? null : rule.disabled_reason,
        updated_at: new Date(),
      };
      if (dto.position !== undefined && dto.position !== rule.position) await this.rules.makeRoomAt(db, dto.position, id);
      await this.rules.update(db, changed);
      await this.audit.record(db, 'rule.updated', { target: toPublicId('rule', id), details: { changed: fields } });
      return RuleResponse.of(changed);
    });
  }

  async remove(id: string): Promise<void> {
    await this.database.transaction(async (db) => {
      const rule = await this.found(db, id, true);
      await this.rules.remove(db, id);
      await this.audit.record(db, 'rule.deleted', { target: toPublicId('rule', id), details: { name: rule.name } });
    });
  }

  async runs(id: string, page: PageQuery): Promise<Page<RuleRunResponse>> {
    await this.found(this.database.db, id);
    return mapPage(await this.rules.runs(this.database.db, id, page), (row) => RuleRunResponse.of(row));
  }

  /**
   * One trigger's run (the `automation.run` attempt). The templates its rules would send are
   * checked first, outside the transaction (the check may sync the catalogue from the channel);
   * then, in one transaction holding the trigger, each enabled rule of its event in order.
   */
  async runTrigger(id: string): Promise<void> {
    const peeked = await this.rules.peekPending(this.database.db, id);
    if (!peeked) return;
    const templateProblems = await this.templateProblems(peeked);
    await this.database.transaction(async (db) => {
      const trigger = await this.rules.lockPending(db, id);
      if (!trigger) return;
      await this.events.asAutomation(db, () => this.runRules(db, trigger, templateProblems));
      await this.rules.removeTrigger(db, id);
    });
  }

  /** Records that a trigger's attempts all failed. */
  async failTrigger(id: string, reason: string): Promise<void> {
    this.logger.error(`Automation rules failed on event ${toPublicId('evt', id)} for good: ${reason}`);
    await this.rules.failTrigger(this.database.db, id, reason);
  }

  private async runRules(db: Db, trigger: TriggerRow, templateProblems: Map<string, TemplateProblem>): Promise<void> {
    const conversationId = conversationOf(trigger);
    const conversation = conversationId && (await this.conversations.find(db, conversationId));
    if (!conversation) return;
    let facts: RuleFacts | null = null;
    for (const rule of await this.rules.enabledFor(db, trigger.event_type)) {
      // Read again after a rule acted: its actions may have changed what the next one reads.
      facts ??= await this.factsOf(db, trigger, conversation.id);
      if (!conditionsHold(rule.conditions, facts)) continue;
      facts = null;
      const run = {
        id: newUuid(),
        rule_id: rule.id,
        trigger_id: trigger.id,
        event_type: trigger.event_type,
        conversation_id: conversation.id,
      };
      const template = templateProblems.get(rule.id);
      // Each rule behind a savepoint: one that fails (a bug, a constraint) is logged and undone, and the others still act.
      await this.rules.savepoint(db);
      try {
        const missing = (template?.disables ? template.reason : null) ?? (await this.actions.missingReference(db, rule.actions));
        if (missing) {
          // Two events of the rule run at once both find it broken: the one that turns it off tells.
          if (await this.rules.disable(db, rule.id, missing, new Date())) {
            this.logger.warn(`Rule ${toPublicId('rule', rule.id)} (${rule.name}) turned off: ${missing}`);
            await this.rules.insertRun(db, { ...run, outcome: 'disabled', actions: [], reason: missing, created_at: new Date() });
          }
        } else {
          const outcomes = await this.actions.perform(
            db,
            conversation.id,
            rule.actions,
            { kind: 'rule', ruleId: rule.id, triggerEventId: trigger.id, triggerType: trigger.event_type },
            template?.reason ?? null,
          );
          await this.rules.insertRun(db, { ...run, outcome: 'acted', actions: outcomes, reason: null, created_at: new Date() });
        }
        await this.rules.releaseSavepoint(db);
      } catch (error) {
        // The database down or a deadlock: the whole trigger runs again later, nothing of it done.
        if (isDatabaseUnavailable(error) || isDeadlock(error)) throw error;
        await this.rules.rollbackToSavepoint(db);
        const reason = `the rule failed: ${(error as Error).message}`.slice(0, 500);
        this.logger.error(`Rule ${toPublicId('rule', rule.id)} (${rule.name}) failed on event ${toPublicId('evt', trigger.id)}: ${reason}`);
        await this.rules.insertRun(db, { ...run, outcome: 'failed', actions: [], reason, created_at: new Date() });
      }
    }
  }

  /** What the conditions read: the event's message, the conversation and its customer as they are now, the inbox's hours at the event. */
  private async factsOf(db: Db, trigger: TriggerRow, conversationId: string): Promise<RuleFacts> {
    const conversation = (await this.conversations.findWithCustomer(db, conversationId))!;
    const contact = (await this.conversations.find(db, conversationId))!.contact_id;
    const customer = await this.contacts.find(db, contact);
    const hours = (await this.inboxes.automationOf(db, conversation.inbox_id))?.business_hours ?? null;
    const message = trigger.event_type === 'message.received' ? (trigger.data.message as { text?: string | null } | undefined) : undefined;
    return {
      messageText: message?.text ?? null,
      contactName: customer?.name ?? null,
      contactPhone: customer?.phone ?? null,
      contactTags: customer?.tags ?? [],
      contactAttributes: customer?.attributes ?? {},
      inboxId: toPublicId('inb', conversation.inbox_id),
      labels: conversation.labels,
      withinBusinessHours: isOpenAt(hours, trigger.occurred_at),
    };
  }

  /**
   * For each enabled rule of the trigger's event with a template its conversation's inbox cannot
   * send, why: the rule is turned off when no inbox's catalogue has the template any more, its send
   * is skipped when only this inbox's lacks it (or it cannot be sent as the rule fills it here).
   */
  private async templateProblems(trigger: TriggerRow): Promise<Map<string, TemplateProblem>> {
    const problems = new Map<string, TemplateProblem>();
    const sending = (await this.rules.enabledFor(this.database.db, trigger.event_type)).filter((rule) =>
      rule.actions.some((action) => action.type === 'send_template'),
    );
    const conversationId = conversationOf(trigger);
    const conversation = sending.length > 0 && conversationId && (await this.conversations.find(this.database.db, conversationId));
    if (!conversation) return problems;
    for (const rule of sending) {
      const problem = await this.actions.templateProblem(rule.actions, conversation.inbox_id);
      if (problem) problems.set(rule.id, { reason: `its template cannot be sent: ${problem.reason}`, disables: !problem.anywhere });
    }
    return problems;
  }

  private async found(db: Db, id: string, lock = false): Promise<RuleRow> {
    const rule = await this.rules.find(db, id, lock);
    if (!rule) throw new NotFoundException('Rule not found');
    return rule;
  }
}

/** The uuid of the conversation the trigger's event is about. */
function conversationOf(trigger: TriggerRow): string | null {
  const publicId = (trigger.data.conversation as { id?: unknown } | undefined)?.id;
  return typeof publicId === 'string' ? parsePublicId('conv', publicId) : null;
}

import { HttpException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { parsePublicId, toPublicId } from '../common/ids';
import { parseDuration } from '../config/duration';
import { ContactsService } from '../contacts/contacts.service';
import { ConversationResponse } from '../conversations/conversation.dto';
import { ConversationsService } from '../conversations/conversations.service';
import { type AutomaticSend, automaticTemplateProblem, MessagesService } from '../conversations/messages.service';
import { NotesService } from '../conversations/notes.service';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import { sameLabelName } from '../labels/label.entity';
import { LabelsService } from '../labels/labels.service';
import { TeamsService } from '../teams/teams.service';
import { TemplatesService } from '../templates/templates.service';
import type { UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import type { ActionType, RuleAction } from './rule-logic';

/** What one action did: `done`, `unchanged` (it was so already), or `skipped` with the reason (outside the 24 hours, …). */
export interface ActionOutcome {
  type: ActionType;
  outcome: 'done' | 'unchanged' | 'skipped';
  detail: string | null;
}

/** Who runs the actions: an agent's macro, or a rule on an event. */
export type ActionSource =
  { kind: 'macro'; macroId: string; agent: UserRow } | { kind: 'rule'; ruleId: string; triggerEventId: string; triggerType: string };

/**
 * The actions of rules and macros, done on one conversation in the caller's transaction through
 * the services that own what they change, so each is recorded and notified as the same change
 * made by hand. An agent's macro acts as that agent (its replies and notes are theirs); a rule
 * acts as nobody (`automated`, `assigned_by` null).
 */
@Injectable()
export class ActionsService {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
    private readonly notes: NotesService,
    private readonly contacts: ContactsService,
    private readonly events: EventsService,
    private readonly teams: TeamsService,
    private readonly users: UsersService,
    private readonly labels: LabelsService,
    private readonly templates: TemplatesService,
  ) {}

  /**
   * Why a template the actions send cannot be sent through the inbox (not in its catalogue, not
   * approved, parameters missing), and whether any inbox's catalogue still has it; null when it
   * can. Read before the transaction: the catalogue check may sync the catalogue from the channel.
   */
  async templateProblem(actions: readonly RuleAction[], inboxId: string): Promise<{ reason: string; anywhere: boolean } | null> {
    for (const action of actions) {
      if (action.type !== 'send_template') continue;
      const problem = automaticTemplateProblem(action.template);
      if (problem) return { reason: problem, anywhere: false };
      try {
        await this.templates.checkSend(action.template, inboxId);
      } catch (error) {
        if (!(error instanceof HttpException)) throw error;
        return { reason: error.message, anywhere: await this.templates.inAnyCatalogue(action.template) };
      }
    }
    return null;
  }

  /** What the actions name that no longer exists (a deleted team, user or label), as a reason; null when all do. */
  async missingReference(db: Db, actions: readonly RuleAction[]): Promise<string | null> {
    for (const action of actions) {
      if (action.type === 'assign_team' && !(await this.teams.holdForUse(db, parsePublicId('team', action.team_id)!)))
        return `team ${action.team_id} no longer exists`;
      if (action.type === 'assign_user' && !(await this.users.find(db, parsePublicId('user', action.user_id)!)))
        return `user ${action.user_id} no longer exists`;
      if (action.type === 'add_labels' || action.type === 'remove_labels') {
        const found = await this.labels.findByNames(db, action.labels);
        const missing = action.labels.find((name) => !found.some((label) => sameLabelName(label.name, name)));
        if (missing !== undefined) return `label "${missing}" no longer exists`;
      }
    }
    return null;
  }

  /** A 422 naming the team, user or label an action names that does not exist (a rule or macro being saved). */
  async assertNamesExist(db: Db, actions: readonly RuleAction[]): Promise<void> {
    const missing = await this.missingReference(db, actions);
    if (missing) throw new UnprocessableEntityException(`actions: ${missing.replace('no longer exists', 'does not exist')}`);
  }

  /**
   * Does the actions in order; a refusal of one (a 4xx of the service it calls) skips it with its
   * reason and the rest go on, as does a template send when `templateSkip` says why it cannot go.
   * The contact and then the conversation are held first, in the order the ingest takes them, so a
   * run never deadlocks with the customer's next message.
   */
  async perform(
    db: Db,
    conversationId: string,
    actions: readonly RuleAction[],
    source: ActionSource,
    templateSkip: string | null = null,
  ): Promise<ActionOutcome[]> {
    const conversation = await this.conversations.find(db, conversationId);
    if (!conversation) throw new NotFoundException('Conversation not found');
    await this.contacts.hold(db, conversation.contact_id);
    await this.conversations.hold(db, conversationId);
    const outcomes: ActionOutcome[] = [];
    for (const action of actions) {
      if (action.type === 'send_template' && templateSkip) {
        outcomes.push({ type: action.type, outcome: 'skipped', detail: templateSkip });
        continue;
      }
      try {
        outcomes.push({ type: action.type, ...(await this.performOne(db, conversationId, action, source)) });
      } catch (error) {
        // The services check before they write, so a refusal leaves the transaction as it was.
        if (!(error instanceof HttpException) || error.getStatus() >= 500) throw error;
        outcomes.push({ type: action.type, outcome: 'skipped', detail: error.message });
      }
    }
    return outcomes;
  }

  private async performOne(db: Db, conversationId: string, action: RuleAction, source: ActionSource): Promise<Omit<ActionOutcome, 'type'>> {
    const actor = source.kind === 'macro' ? source.agent : null;
    const before = ConversationResponse.of(await this.conversations.findWithCustomer(db, conversationId));
    const change = async (dto: Parameters<ConversationsService['change']>[2]) => {
      const after = await this.conversations.change(db, conversationId, dto, actor);
      return changed(before, after);
    };
    const now = new Date();
    switch (action.type) {
      case 'assign_team':
        return change({ team_id: action.team_id });
      case 'assign_user':
        return change({ assigned_to: action.user_id });
      case 'add_labels': {
        const adding = action.labels.filter((name) => !before.labels.some((label) => sameLabelName(label, name)));
        return change({ labels: [...before.labels, ...adding] });
      }
      case 'remove_labels':
        return change({ labels: before.labels.filter((label) => !action.labels.some((name) => sameLabelName(label, name))) });
      case 'snooze':
        return change({ status: 'snoozed', snoozed_until: new Date(now.getTime() + parseDuration(action.duration)!).toISOString() });
      case 'close':
        return change({ status: 'closed' });
      case 'send_text':
        return this.send(db, conversationId, { type: 'text', text: action.text }, actor);
      case 'send_template':
        return this.send(db, conversationId, { type: 'template', template: action.template }, actor);
      case 'add_note':
        await this.notes.addIn(db, conversationId, action.text, actor?.id ?? null);
        return done(null);
      case 'set_attribute': {
        const contactId = (await this.conversations.hold(db, conversationId))!.contact_id;
        const result = await this.contacts.setAttribute(db, contactId, action.key, action.value);
        if (result === 'changed') return done(null);
        return result === 'unchanged' ? { outcome: 'unchanged', detail: null } : { outcome: 'skipped', detail: result };
      }
      case 'send_webhook_event':
        await this.events.record(db, 'automation.triggered', {
          name: action.name,
          rule_id: source.kind === 'rule' ? toPublicId('rule', source.ruleId) : null,
          macro_id: source.kind === 'macro' ? toPublicId('mac', source.macroId) : null,
          run_by: source.kind === 'macro' ? toPublicId('user', source.agent.id) : null,
          trigger_event_id: source.kind === 'rule' ? toPublicId('evt', source.triggerEventId) : null,
          trigger_event_type: source.kind === 'rule' ? source.triggerType : null,
          conversation: before,
        });
        return done(null);
    }
  }

  private async send(db: Db, conversationId: string, send: AutomaticSend, actor: UserRow | null): Promise<Omit<ActionOutcome, 'type'>> {
    const conversation = (await this.conversations.hold(db, conversationId))!;
    const sent = await this.messages.queueAutomatic(db, conversation, send, new Date(), actor?.id ?? null);
    return 'queued' in sent ? done(toPublicId('msg', sent.queued.id)) : { outcome: 'skipped', detail: sent.skipped };
  }
}

function done(detail: string | null): Omit<ActionOutcome, 'type'> {
  return { outcome: 'done', detail };
}

/** Whether a change of the conversation changed what actions change. */
function changed(before: ConversationResponse, after: ConversationResponse): Omit<ActionOutcome, 'type'> {
  const fields = ['status', 'assigned_to', 'team_id', 'snoozed_until'] as const;
  const same = fields.every((field) => before[field] === after[field]) && before.labels.join('\n') === after.labels.join('\n');
  return { outcome: same ? 'unchanged' : 'done', detail: null };
}

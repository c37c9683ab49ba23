import { BadRequestException, Injectable, NotFoundException, OnModuleInit, UnprocessableEntityException } from '@nestjs/common';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import type { ChannelCustomer } from '../contacts/channel-customer';
import type { ContactRow } from '../contacts/contact.entity';
import { TeamsService } from '../teams/teams.service';
import { mapPage, Page } from '../common/pagination';
import { DEFAULT_INBOX_ID } from '../common/default-inbox';
import { InboxesService } from '../inboxes/inboxes.service';
import { Database } from '../database/database';
import { isForeignKeyViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import { sameLabelName, sortLabelNames } from '../labels/label.entity';
import { LabelsService } from '../labels/labels.service';
import { NotificationsService } from '../notifications/notifications.service';
import { seesInbox, visibleInboxesOf, type UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ConversationCountsQuery, ConversationResponse, ListConversationsQuery, UpdateConversationDto } from './conversation.dto';
import type { ConversationRow, ConversationWithCustomer } from './conversation.entity';
import { automatedMessage } from './message.entity';
import { ConversationCounts, ConversationFilter, ConversationRepository } from './conversation.repository';
import { assertWithinCustomerWindow } from './customer-window';
import { MessageRepository } from './message.repository';
import { ConversationAssignedEvent, ConversationChanges, ConversationEvent, ConversationUpdatedEvent } from './conversation.events';
import { UserFrames } from '../events/user-frames';
import { requestedInboxOf } from '../users/requested-inbox';

const isoOrNull = (at: Date | null) => (at ? at.toISOString() : null);
const publicTeamId = (id: string | null) => (id ? toPublicId('team', id) : null);

/** How many due snoozes one transaction ends. */
const WAKE_BATCH = 200;

/** The repository's filter for a list query: `me` is the caller, `none` the unassigned ones. */
export function conversationFilterOf(
  query: ListConversationsQuery,
  caller: Pick<UserRow, 'id' | 'role' | 'inbox_ids'>,
): ConversationFilter {
  const callerId = caller.id;
  const assignedTo =
    query.assigned_to === undefined
      ? undefined
      : query.assigned_to === 'none'
        ? null
        : query.assigned_to === 'me'
          ? callerId
          : parsePublicId('user', query.assigned_to)!;
  const inboxId = requestedInboxOf(query.inbox_id, caller);
  const team = query.team_id === undefined || query.team_id === 'mine' ? query.team_id : parsePublicId('team', query.team_id)!;
  return { status: query.status, assignedTo, inboxId, q: query.q, label: query.label, unread: query.unread, team, waiting: query.waiting };
}

/**
 * The snooze time the body asks for, or null when it asks for none; a 400 naming snoozed_until
 * when it comes without `status: "snoozed"`, is missing with it, or is not in the future.
 */
function snoozeTimeOf(dto: UpdateConversationDto, now: Date): Date | null {
  if (dto.snoozed_until === undefined) {
    if (dto.status === 'snoozed') throw new BadRequestException('snoozed_until is required with status snoozed');
    return null;
  }
  if (dto.status !== 'snoozed') throw new BadRequestException('snoozed_until goes only with status snoozed');
  const until = new Date(dto.snoozed_until);
  if (until.getTime() <= now.getTime()) throw new BadRequestException('snoozed_until must be in the future');
  return until;
}

const sameNames = (a: string[], b: string[]) => a.length === b.length && a.every((name, i) => name === b[i]);

/**
 * The status of two conversations made one: open if either is (someone is waiting), else snoozed
 * if either is (until the earlier of their times), else closed.
 */
function mergedState(a: ConversationRow, b: ConversationRow): Pick<ConversationRow, 'status' | 'snoozed_until'> {
  if (a.status === 'open' || b.status === 'open') return { status: 'open', snoozed_until: null };
  const times = [a, b].filter((c) => c.status === 'snoozed' && c.snoozed_until).map((c) => c.snoozed_until!.getTime());
  if (times.length > 0) return { status: 'snoozed', snoozed_until: new Date(Math.min(...times)) };
  return { status: 'closed', snoozed_until: null };
}

@Injectable()
export class ConversationsService implements OnModuleInit {
  private readonly agentClosers: ((db: Db, conversationId: string, at: Date) => Promise<void>)[] = [];

  constructor(
    private readonly database: Database,
    private readonly conversations: ConversationRepository,
    private readonly messages: MessageRepository,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    private readonly users: UsersService,
    private readonly labels: LabelsService,
    private readonly inboxes: InboxesService,
    private readonly userFrames: UserFrames,
    private readonly teams: TeamsService,
  ) {}

  /** The stream sends each user the counts of their tabs at connect and whenever an event (or their read, ReadsService) may have changed them. */
  onModuleInit(): void {
    this.userFrames.add({
      event: 'counts',
      changedBy: (type) => type.startsWith('conversation.') || type === 'message.received' || type === 'contact.merged',
      build: (user) => this.conversations.counts(this.database.db, user.id, { visibleInboxes: visibleInboxesOf(user) }),
    });
  }

  /** Newest activity first. */
  async list(query: ListConversationsQuery, caller: UserRow): Promise<Page<ConversationResponse>> {
    return mapPage(
      await this.conversations.list(
        this.database.db,
        { ...conversationFilterOf(query, caller), visibleInboxes: visibleInboxesOf(caller) },
        query,
        caller.id,
      ),
      ConversationResponse.of,
    );
  }

  /** The counts of the inbox's tabs, as the caller sees them: of the inboxes they see, or of one of them. */
  counts(caller: UserRow, query: ConversationCountsQuery): Promise<ConversationCounts> {
    return this.conversations.counts(this.database.db, caller.id, {
      visibleInboxes: visibleInboxesOf(caller),
      inboxId: requestedInboxOf(query.inbox_id, caller),
    });
  }

  /**
   * The one check of a conversation named in a route (ConversationAccessGuard runs it before every
   * route of a conversation): a 404 to a caller who may not see its inbox, as if it did not exist.
   * A malformed or unknown id passes, for the route to answer as it does.
   */
  async assertVisible(publicId: string, caller: UserRow): Promise<void> {
    const id = parsePublicId('conv', publicId);
    // An admin sees every conversation: nothing to read.
    if (visibleInboxesOf(caller) === null || id === null) return;
    const inboxId = await this.conversations.inboxOf(this.database.db, id);
    if (inboxId !== null && !seesInbox(caller, inboxId)) throw new NotFoundException('Conversation not found');
  }

  /** The conversation as `reader` sees it (their unread count). */
  async get(id: string, reader: UserRow): Promise<ConversationResponse> {
    return ConversationResponse.of(await this.findWithCustomer(this.database.db, id, reader.id));
  }

  /**
   * Closes, reopens, snoozes, assigns or unassigns, and replaces the labels; each real change
   * records its event (conversation.closed / reopened / assigned, and one conversation.updated
   * for the labels and the snooze together).
   */
  async update(id: string, dto: UpdateConversationDto, actor: UserRow): Promise<ConversationResponse> {
    if (
      dto.status === undefined &&
      dto.assigned_to === undefined &&
      dto.labels === undefined &&
      dto.snoozed_until === undefined &&
      dto.team_id === undefined
    )
      throw new BadRequestException('Body must contain status, assigned_to, team_id or labels');
    // A label's rename or deletion, a macro or a merge can hold what this needs in the other order.
    return this.database.transactionRetryingDeadlocks((db) => this.change(db, id, dto, actor));
  }

  /**
   * `update`'s change in the caller's transaction, by a user or (actor null) by an automation rule;
   * an agent who closes it inside the customer's 24 hours has the closers (the satisfaction survey) run.
   */
  async change(db: Db, id: string, dto: UpdateConversationDto, actor: UserRow | null): Promise<ConversationResponse> {
    const now = new Date();
    const snoozeTime = snoozeTimeOf(dto, now);
    const assigneeId = dto.assigned_to === undefined || dto.assigned_to === null ? dto.assigned_to : parsePublicId('user', dto.assigned_to);
    if (assigneeId === null && dto.assigned_to !== null) throw new UnprocessableEntityException('assigned_to does not name a user');
    // The labels (share-locked) before the conversation: a rename holds its label, then locks the
    // label's conversations to rewrite their names; the other order could deadlock with it.
    const labels = dto.labels === undefined ? undefined : await this.resolveLabels(db, dto.labels);
    const conversation = await this.conversations.lock(db, id);
    if (!conversation) throw new NotFoundException('Conversation not found');
    if (assigneeId) {
      const assignee = await this.users.find(db, assigneeId);
      if (!assignee) throw new UnprocessableEntityException('assigned_to does not name a user');
      if (!seesInbox(assignee, conversation.inbox_id))
        throw new UnprocessableEntityException("assigned_to is not a member of the conversation's inbox");
    }
    const changes: ConversationChanges = {};
    if (dto.team_id !== undefined) {
      const teamId = await this.teamFor(db, dto.team_id, conversation);
      if (teamId !== conversation.team_id) {
        await this.conversations.setTeam(db, id, teamId, now);
        changes.team_id = { from: publicTeamId(conversation.team_id), to: publicTeamId(teamId) };
      }
    }
    if (labels !== undefined) {
      const from = sortLabelNames((await this.findWithCustomer(db, id)).labels);
      const to = sortLabelNames(labels.map((label) => label.name));
      if (!sameNames(from, to)) {
        await this.conversations.replaceLabels(
          db,
          id,
          labels.map((label) => label.id),
        );
        changes.labels = { from, to };
      }
    }

    const status = dto.status ?? conversation.status;
    const snoozedUntil = status === 'snoozed' ? (snoozeTime ?? conversation.snoozed_until) : null;
    const statusChanged = status !== conversation.status;
    const snoozeChanged = isoOrNull(snoozedUntil) !== isoOrNull(conversation.snoozed_until);
    const assigneeChanged = assigneeId !== undefined && assigneeId !== conversation.assigned_to;
    if (status === 'snoozed' && statusChanged) changes.status = { from: conversation.status, to: status };
    if (status === 'snoozed' && snoozeChanged)
      changes.snoozed_until = { from: isoOrNull(conversation.snoozed_until), to: isoOrNull(snoozedUntil) };
    if (statusChanged || snoozeChanged || assigneeChanged || changes.labels) {
      const assignedTo = assigneeId === undefined ? conversation.assigned_to : assigneeId;
      await this.conversations.setState(db, id, { status, assigned_to: assignedTo, snoozed_until: snoozedUntil }, now);
    }

    const updated = ConversationResponse.of(await this.findWithCustomer(db, id));
    if (statusChanged && status !== 'snoozed')
      await this.events.record(db, status === 'closed' ? 'conversation.closed' : 'conversation.reopened', ConversationEvent.of(updated));
    if (Object.keys(changes).length > 0)
      await this.events.record(db, 'conversation.updated', ConversationUpdatedEvent.of(updated, changes));
    if (assigneeChanged)
      await this.recordAssignment(db, updated, {
        assignedTo: assigneeId ?? null,
        previousAssignedTo: conversation.assigned_to,
        by: actor,
      });
    if (statusChanged && status === 'closed' && actor) for (const closer of this.agentClosers) await closer(db, conversation.id, now);
    return ConversationResponse.of(await this.findWithCustomer(db, id, actor?.id ?? null));
  }

  /** For a module that follows an agent's close in its transaction (automation: the satisfaction survey); called while the application starts. */
  whenAgentCloses(closer: (db: Db, conversationId: string, at: Date) => Promise<void>): void {
    this.agentClosers.push(closer);
  }

  /**
   * The router gives a waiting conversation to an agent, in the router's transaction (which holds
   * the conversation): recorded and notified as any assignment, `assigned_by` null.
   */
  async assignByRouter(db: Db, id: string, agentId: string): Promise<void> {
    await this.conversations.setAssignee(db, id, agentId, new Date());
    const updated = ConversationResponse.of(await this.findWithCustomer(db, id));
    await this.recordAssignment(db, updated, { assignedTo: agentId, previousAssignedTo: null, by: null });
  }

  /**
   * Conversations of `agentId` that go back to the queue (their agent left the inbox or stayed
   * offline), in the caller's transaction: each still open and theirs is unassigned, recorded with
   * `assigned_by` null. Answers how many.
   */
  async returnToQueue(db: Db, ids: readonly string[], agentId: string): Promise<number> {
    const returned = await this.conversations.unassignOpen(db, ids, agentId, new Date());
    for (const id of returned) {
      const updated = ConversationResponse.of(await this.findWithCustomer(db, id));
      await this.recordAssignment(db, updated, { assignedTo: null, previousAssignedTo: agentId, by: null });
    }
    return returned.length;
  }

  /** An assignment's event, and the assignee's notification unless they assigned themself (`by` null: the router). */
  private async recordAssignment(
    db: Db,
    conversation: ConversationResponse,
    change: { assignedTo: string | null; previousAssignedTo: string | null; by: UserRow | null },
  ): Promise<void> {
    await this.events.record(
      db,
      'conversation.assigned',
      ConversationAssignedEvent.of(conversation, { ...change, assignedBy: change.by?.id ?? null }),
    );
    if (change.assignedTo === null || change.assignedTo === change.by?.id) return;
    await this.notifications.notify(db, {
      userId: change.assignedTo,
      type: 'conversation.assigned',
      conversationId: parsePublicId('conv', conversation.id)!,
      text: change.by
        ? `${change.by.name} assigned you the conversation with ${conversation.customer.name}`
        : `You were given the conversation with ${conversation.customer.name}`,
    });
  }

  /** The team uuid a PATCH names (null: none), held until the commit; a 422 unless it works the conversation's inbox. */
  private async teamFor(db: Db, publicId: string | null, conversation: ConversationRow): Promise<string | null> {
    if (publicId === null) return null;
    const teamId = parsePublicId('team', publicId)!;
    // The team it has already: nothing to hold (and a deletion of that team, which waits for this conversation, is not waited for).
    if (teamId === conversation.team_id) return teamId;
    const team = await this.teams.holdForUse(db, teamId);
    if (!team) throw new UnprocessableEntityException('team_id does not name a team');
    if (!team.inbox_ids.includes(conversation.inbox_id))
      throw new UnprocessableEntityException("team_id names a team that does not work the conversation's inbox");
    return team.id;
  }

  /**
   * The conversation with a contact, opened by an agent (the contact may never have written): a
   * new one is `created` (event conversation.created) and open; an existing one is answered as it is.
   * Until the customer writes, only templates can be sent in it.
   */
  async start(
    contactPublicId: string,
    inboxPublicId: string | undefined,
    actor: UserRow,
  ): Promise<{ conversation: ConversationResponse; created: boolean }> {
    const contactId = parsePublicId('ct', contactPublicId);
    if (contactId === null) throw new UnprocessableEntityException('contact_id does not name a contact');
    const inboxId = inboxPublicId === undefined ? DEFAULT_INBOX_ID : parsePublicId('inb', inboxPublicId);
    return this.database.transaction(async (db) => {
      // An inbox the caller does not work is one they cannot see: the same answer as one that does not exist.
      if (inboxId === null || !seesInbox(actor, inboxId) || !(await this.inboxes.isActive(db, inboxId)))
        throw new UnprocessableEntityException('inbox_id does not name an active inbox');
      const existing = await this.conversations.lockByContact(db, contactId, inboxId);
      if (existing)
        return { conversation: ConversationResponse.of(await this.findWithCustomer(db, existing.id, actor.id)), created: false };
      let opened: ConversationRow;
      try {
        ({ conversation: opened } = await this.openForContact(db, contactId, new Date(), { reopen: false, inboxId }));
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new UnprocessableEntityException('contact_id does not name a contact');
        throw error;
      }
      // Where the router hands conversations out, one an agent opens is theirs, not the queue's.
      if (await this.inboxes.assignsAutomatically(db, inboxId)) {
        await this.conversations.setAssignee(db, opened.id, actor.id, new Date());
        const assigned = ConversationResponse.of(await this.findWithCustomer(db, opened.id));
        await this.recordAssignment(db, assigned, { assignedTo: actor.id, previousAssignedTo: null, by: actor });
      }
      return { conversation: ConversationResponse.of(await this.findWithCustomer(db, opened.id, actor.id)), created: true };
    });
  }

  /** Whether anything leaves through the conversation's inbox: not while it is disabled. */
  async inboxSends(db: Db, conversation: Pick<ConversationRow, 'inbox_id'>): Promise<boolean> {
    // The default inbox cannot be disabled: its sends, the most of them, read nothing more.
    return conversation.inbox_id === DEFAULT_INBOX_ID || this.inboxes.isActive(db, conversation.inbox_id);
  }

  /** A 422 when the conversation's inbox is disabled: nothing leaves through it until an admin enables it. */
  async assertInboxSends(db: Db, conversation: ConversationRow): Promise<void> {
    if (await this.inboxSends(db, conversation)) return;
    throw new UnprocessableEntityException('The inbox of this conversation is disabled: an admin enables it to send again');
  }

  /**
   * The inbox the customer wrote to last: the number the channel knows them on (the default inbox
   * for a customer who never wrote). With `within`, a 422 unless that was within the last 24 hours
   * (the conversation's window), `within` saying what waits on it.
   */
  async customersLatestInbox(db: Db, contactId: string, within?: { now: Date; what: string }): Promise<string> {
    const latest = await this.conversations.latestInboundOfContact(db, contactId);
    if (within) assertWithinCustomerWindow({ last_inbound_at: latest?.last_inbound_at ?? null }, within.now, within.what);
    return latest?.inbox_id ?? DEFAULT_INBOX_ID;
  }

  /**
   * A customer who wrote in this inbox before, by the channel's user id or else their phone: their
   * contact and its conversation, locked until the caller's transaction ends, and whether the
   * channel delivered this message before (ConversationRepository.lockThreadOfCustomer); null when
   * either is not there yet (the caller then finds or makes each).
   */
  lockThreadOfCustomer(
    db: Db,
    customer: Pick<ChannelCustomer, 'phone' | 'userId'>,
    inboxId: string,
    channelMessageId: string,
  ): Promise<{ contact: ContactRow; conversation: ConversationRow; known: boolean } | null> {
    return this.conversations.lockThreadOfCustomer(db, customer, inboxId, channelMessageId);
  }

  /**
   * The contact's conversation inside the caller's transaction, created if new and reopened if
   * closed or snoozed (recording conversation.created / conversation.reopened), locked until
   * commit. `reopen: false` leaves it as it is (a system message is not the customer writing).
   * `status: 'closed'` makes a new one closed: a campaign's message is no work for an agent until
   * the customer answers, which reopens it.
   * The lock makes the customer's message and the snooze's own wake-up exclusive: the one that
   * comes second finds the conversation open and records nothing.
   */
  async openForContact(
    db: Db,
    contactId: string,
    at: Date,
    { reopen = true, inboxId = DEFAULT_INBOX_ID, status = 'open' as 'open' | 'closed' } = {},
  ): Promise<{ conversation: ConversationRow; created: boolean }> {
    const fresh: ConversationRow = {
      id: newUuid(at.getTime()),
      contact_id: contactId,
      inbox_id: inboxId,
      status,
      assigned_to: null,
      last_message_at: at,
      last_inbound_at: null,
      snoozed_until: null,
      last_received_at: null,
      last_received_id: null,
      team_id: null,
      waiting_since: null,
      csat_rating: null,
      csat_comment: null,
      csat_rated_at: null,
      csat_message_id: null,
      csat_comment_until: null,
      last_campaign_at: null,
      created_at: at,
      updated_at: at,
    };
    // Locked first: a customer's next message (nearly every one) costs one statement. The caller
    // holds the contact's lock, so another transaction creating it in between is rare (and
    // then found by the second lock).
    let conversation = await this.conversations.lockByContact(db, contactId, inboxId);
    let created = false;
    if (conversation === null) {
      created = await this.conversations.insertUnlessContactHasOne(db, fresh);
      conversation = created ? fresh : (await this.conversations.lockByContact(db, contactId, inboxId))!;
    }
    if (created) {
      await this.events.record(
        db,
        'conversation.created',
        ConversationEvent.of(ConversationResponse.of(await this.findWithCustomer(db, conversation.id))),
      );
    } else if (reopen) {
      await this.reopenForCustomer(db, conversation, at);
    }
    return { conversation, created };
  }

  /** The conversation's row as it is, or null. */
  find(db: Db, id: string): Promise<ConversationRow | null> {
    return this.conversations.find(db, id);
  }

  /** The conversation's row, held until the caller's transaction ends; null when there is none. */
  hold(db: Db, id: string): Promise<ConversationRow | null> {
    return this.conversations.lock(db, id);
  }

  /** A closed or snoozed conversation the customer wrote in (held by the caller) opens, with conversation.reopened; `conversation` is updated. */
  async reopenForCustomer(db: Db, conversation: ConversationRow, at: Date): Promise<void> {
    if (conversation.status === 'open') return;
    Object.assign(conversation, { status: 'open', snoozed_until: null, updated_at: at });
    await this.conversations.setState(
      db,
      conversation.id,
      { status: 'open', assigned_to: conversation.assigned_to, snoozed_until: null },
      at,
    );
    await this.events.record(
      db,
      'conversation.reopened',
      ConversationEvent.of(ConversationResponse.of(await this.findWithCustomer(db, conversation.id))),
    );
  }

  /** The satisfaction survey sent for the episode just closed, in the caller's transaction: the answer to it is the one kept. */
  async recordSurveySent(db: Db, id: string, messageId: string): Promise<void> {
    await this.conversations.setSurvey(db, id, messageId);
  }

  /**
   * The customer's answer to the survey, in the caller's transaction (which holds the conversation):
   * a rating (which clears an earlier comment) or the comment written after it; `conversation.rated`.
   */
  async recordSurveyAnswer(
    db: Db,
    id: string,
    answer: { rating: number; at: Date; commentUntil: Date } | { comment: string },
  ): Promise<void> {
    await this.conversations.setSurveyAnswer(db, id, answer);
    await this.events.record(db, 'conversation.rated', ConversationEvent.of(ConversationResponse.of(await this.findWithCustomer(db, id))));
  }

  /**
   * Opens the snoozed conversations whose time has come, recording conversation.reopened for
   * each in the same transaction; replicas share the work (see ConversationRepository.wakeDue).
   * Answers how many it opened.
   */
  async wakeDueSnoozes(): Promise<number> {
    let total = 0;
    for (;;) {
      const woken = await this.database.transaction(async (db) => {
        const ids = await this.conversations.wakeDue(db, WAKE_BATCH, new Date());
        for (const id of ids)
          await this.events.record(
            db,
            'conversation.reopened',
            ConversationEvent.of(ConversationResponse.of(await this.findWithCustomer(db, id))),
          );
        return ids.length;
      });
      total += woken;
      if (woken < WAKE_BATCH) return total;
    }
  }

  /**
   * Two customers become one (a contact merge), in the caller's transaction, after the caller has
   * locked both contacts: each conversation of `fromContactId` becomes part of the one of
   * `intoContactId` in the same inbox, so the customer still has one conversation per inbox.
   * - Only the other customer has one: it becomes this customer's (see `moveToContact` for its window).
   * - Both have one: the other's messages move into this one's (the thread orders them by time),
   *   and so do the notifications about it and its labels; the other conversation is deleted.
   *   This one takes the later last_message_at, the status of both (see `mergedState`), and keeps its assignee, or takes the
   *   other's when it had none (recorded as conversation.reopened / conversation.assigned). Its
   *   24-hour window stays its own: replies go to this customer's phone.
   */
  async mergeCustomerThreads(db: Db, intoContactId: string, fromContactId: string, actor: UserRow): Promise<void> {
    const threads = await this.conversations.lockAllOfContact(db, fromContactId);
    // Each thread merges into the same inbox's: an agent merges only within the inboxes they work.
    if (threads.some((thread) => !seesInbox(actor, thread.inbox_id)))
      throw new UnprocessableEntityException('from has conversations in an inbox you do not work: an admin merges these contacts');
    for (const from of threads) await this.mergeThread(db, intoContactId, from, actor);
  }

  private async mergeThread(db: Db, intoContactId: string, from: ConversationRow, actor: UserRow): Promise<void> {
    const into = await this.conversations.lockByContact(db, intoContactId, from.inbox_id);
    const now = new Date();
    if (!into) {
      await this.conversations.moveToContact(db, from.id, intoContactId, now);
      return;
    }
    await this.messages.moveToConversation(db, from.id, into.id);
    await this.notifications.moveToConversation(db, from.id, into.id);
    const merged = {
      ...mergedState(into, from),
      assigned_to: into.assigned_to ?? from.assigned_to,
      last_message_at: into.last_message_at > from.last_message_at ? into.last_message_at : from.last_message_at,
      updated_at: now,
    };
    await this.conversations.absorb(db, into.id, from.id, merged);
    await this.conversations.mergeFacts(db, into.id, from.id);
    await this.conversations.delete(db, from.id);
    if (merged.status === into.status && merged.assigned_to === into.assigned_to) return;
    const conversation = ConversationResponse.of(await this.findWithCustomer(db, into.id));
    if (merged.status === 'open' && into.status !== 'open')
      await this.events.record(db, 'conversation.reopened', ConversationEvent.of(conversation));
    else if (merged.status !== into.status) {
      // Closed, and snoozed by the other conversation: a snooze, as conversation.updated records one.
      await this.events.record(
        db,
        'conversation.updated',
        ConversationUpdatedEvent.of(conversation, {
          status: { from: into.status, to: merged.status },
          snoozed_until: { from: null, to: merged.snoozed_until?.toISOString() ?? null },
        }),
      );
    }
    if (merged.assigned_to !== into.assigned_to) {
      await this.events.record(
        db,
        'conversation.assigned',
        ConversationAssignedEvent.of(conversation, { assignedTo: merged.assigned_to, previousAssignedTo: null, assignedBy: actor.id }),
      );
    }
  }

  /**
   * Takes the conversation's turn for the away message, in the caller's transaction (which holds
   * it): true unless one went to it within 12 hours of `at`.
   */
  claimAwayMessage(db: Db, id: string, at: Date): Promise<boolean> {
    return this.conversations.claimAwayMessage(db, id, at);
  }

  /**
   * Auto-resolve: closes up to `limit` open conversations of the inbox without a message since
   * `before`, each with a note in its thread (automated) and its conversation.closed, in one
   * transaction. Answers how many it closed.
   */
  async closeSilent(inboxId: string, before: Date, note: string, limit: number): Promise<number> {
    return this.database.transaction(async (db) => {
      const now = new Date();
      const ids = await this.conversations.closeSilent(db, inboxId, before, limit, now);
      for (const id of ids) {
        await this.messages.insert(db, automatedMessage(id, 'note', note, newUuid(now.getTime()), now));
        await this.events.record(
          db,
          'conversation.closed',
          ConversationEvent.of(ConversationResponse.of(await this.findWithCustomer(db, id))),
        );
      }
      return ids.length;
    });
  }

  /**
   * Holds the conversation against changes until the caller's transaction ends (others may hold it
   * too), or a 404. A read marker written after this counts against the conversation as it stays.
   */
  async holdForReading(db: Db, id: string): Promise<void> {
    if (!(await this.conversations.holdShared(db, id))) throw new NotFoundException('Conversation not found');
  }

  /** Folds the ledger of the counts of the tabs (see ConversationRepository.foldCounters). */
  async foldCounters(): Promise<void> {
    await this.conversations.foldCounters(this.database.db);
  }

  /** The conversation with its customer (and the reader's unread count, when one is given), or a 404. */
  async findWithCustomer(db: Db, id: string, readerId: string | null = null): Promise<ConversationWithCustomer> {
    const conversation = await this.conversations.findWithCustomer(db, id, readerId);
    if (!conversation) throw new NotFoundException('Conversation not found');
    return conversation;
  }

  /** The labels these names name, or a 422 naming the first that names none. */
  private async resolveLabels(db: Db, names: string[]) {
    const labels = await this.labels.findByNames(db, names);
    const unknown = names.find((name) => !labels.some((label) => sameLabelName(label.name, name)));
    if (unknown !== undefined) throw new UnprocessableEntityException(`labels: no label is named "${unknown}"`);
    return labels;
  }
}

import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { containsPattern } from '../common/search';
import type { ChannelCustomer } from '../contacts/channel-customer';
import { contactSearchText, type ContactRow } from '../contacts/contact.entity';
import { CONTACT_COLUMNS } from '../contacts/contact.repository';
import { Keyset, mayKeepPlan } from '../database/keyset';
import { Db, execute, prefixedColumns, query, queryOne, readPrefixed, Sql, sql } from '../database/sql';
import { UNREAD_COUNT_LIMIT, type ConversationRow, type ConversationStatus, type ConversationWithCustomer } from './conversation.entity';

/** A statement showing conversations `conversations` (aliased `c`) as answers do, for a reader. */
export type ShowRows = (conversations: Sql, readerId: string | null) => Sql;

/**
 * Conversations `c` (the table, or a page of it selected first) as every answer shows them: with
 * the customer, and what the row keeps for the list (ListRowColumns1764230000000): the label
 * names, the newest message of the exchange with the customer (its status read from the message,
 * one probe of messages_pkey: PreviewStatusRead1764250000000), and the number of messages the
 * customer wrote. For a reader (a user's uuid), also their unread count: that number less the one
 * their marker holds (one probe of conversation_reads_pkey), stopped at UNREAD_COUNT_LIMIT.
 */
function shown(conversations: Sql, readerId: string | null): Sql {
  // The marker is a subquery of each shown row, its reader a subquery's value: how many markers a
  // reader has changes no plan, so one kept without the values (keepsListPlan) suits every reader
  // and costs what the plans made with them do (with the id as a value, PostgreSQL planned a
  // reader without markers apart, cheaper, and kept no plan).
  const unread =
    readerId === null
      ? sql``
      : sql`, LEAST(c.inbound_count - coalesce((SELECT r.inbound_read FROM conversation_reads r WHERE r.conversation_id = c.id AND r.user_id = (SELECT ${readerId}::uuid)), 0),
          ${UNREAD_COUNT_LIMIT})::int AS unread_count`;
  return sql`SELECT c.id, c.inbox_id, c.status, c.assigned_to, c.team_id, c.waiting_since, c.last_message_at, c.last_inbound_at, c.snoozed_until, c.created_at, c.updated_at,
    c.csat_rating, c.csat_comment, c.csat_rated_at,
    ct.name AS customer_name, ct.phone AS customer_phone, ct.wa_user_id AS customer_wa_user_id, ct.username AS customer_username,
    c.label_names AS labels,
    c.preview_id AS last_message_id, c.preview_direction AS last_message_direction, c.preview_type AS last_message_type,
    c.preview_text AS last_message_text, pm.status AS last_message_status, c.preview_created_at AS last_message_created_at${unread}
  FROM ${conversations} c JOIN contacts ct ON ct.id = c.contact_id LEFT JOIN messages pm ON pm.id = c.preview_id`;
}

/**
 * For a conversation `c`: whether the user has not read its newest inbound message (no marker, or
 * a marker before it). One probe of conversation_reads_pkey per conversation.
 */
function hasUnread(readerId: string): Sql {
  return sql`c.last_received_id IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM conversation_reads r WHERE r.conversation_id = c.id AND r.user_id = ${readerId}
       AND (r.last_read_at, r.last_read_message_id) >= (c.last_received_at, c.last_received_id))`;
}

/** A conversation's columns (ConversationRow), which lockThreadOfCustomer also selects beside its contact's. */
const CONVERSATION_COLUMNS = [
  'id',
  'contact_id',
  'inbox_id',
  'status',
  'assigned_to',
  'last_message_at',
  'last_inbound_at',
  'snoozed_until',
  'last_received_at',
  'last_received_id',
  'team_id',
  'waiting_since',
  'csat_rating',
  'csat_comment',
  'csat_rated_at',
  'csat_message_id',
  'csat_comment_until',
  'last_campaign_at',
  'created_at',
  'updated_at',
] as const;
const COLUMNS = sql.raw(CONVERSATION_COLUMNS.join(', '));
const RECENT_FIRST = new Keyset<ConversationWithCustomer>({ time: 'c.last_message_at', id: 'c.id' }, 'DESC', (row) => [
  row.last_message_at,
  row.id,
]);
/** The queue: the longest waiting first, on conversations_waiting_idx. */
const LONGEST_WAITING_FIRST = new Keyset<ConversationWithCustomer>({ time: 'c.waiting_since', id: 'c.id' }, 'ASC', (row) => [
  row.waiting_since!,
  row.id,
]);

export interface ConversationFilter {
  status?: ConversationStatus;
  /** A user's uuid, or null for the unassigned ones. */
  assignedTo?: string | null;
  /** An inbox's uuid. */
  inboxId?: string;
  /** The inboxes the reader may see (visibleInboxesOf); null or left out: every inbox. */
  visibleInboxes?: readonly string[] | null;
  /** Part of the customer's name, phone or e-mail, case-insensitive. */
  q?: string;
  /** A label's name, case-insensitive. */
  label?: string;
  /** Only those with messages the reader has not read. */
  unread?: boolean;
  /** A team's uuid, or `mine`: any team of the reader. */
  team?: string;
  /** Only those waiting for an agent, the longest waiting first. */
  waiting?: boolean;
}

/** Which conversations the counts count: those of the inboxes the user may see, of one inbox among them. */
export interface CountsScope {
  /** Null or left out: every inbox. */
  visibleInboxes?: readonly string[] | null;
  inboxId?: string;
}

/** The counts of the inbox's tabs, for one user. */
export interface ConversationCounts {
  open: number;
  mine: number;
  unassigned: number;
  snoozed: number;
  closed: number;
  unread: number;
  waiting: number;
}

/** What an agent changes on a conversation: its status (with the snooze time exactly while snoozed) and its assignee. */
export interface ConversationState {
  status: ConversationStatus;
  assigned_to: string | null;
  snoozed_until: Date | null;
}

/** One fold of the counts' ledger (see ConversationRepository.foldCounters); the bench's seed runs it too. */
export const FOLD_COUNTERS = sql`WITH taken AS (DELETE FROM conversation_counters RETURNING counter, user_id, inbox_id, delta)
  INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
  SELECT counter, user_id, inbox_id, sum(delta) FROM taken GROUP BY counter, user_id, inbox_id HAVING sum(delta) <> 0`;

/**
 * The one condition of what a reader may see of the inboxes, on a column holding a conversation's
 * inbox: none for every inbox (null), else that column among the visible ones.
 */
export function withinInboxes(column: Sql, visible: readonly string[] | null): Sql[] {
  return visible === null ? [] : [sql`${column} = ANY(${[...visible]}::uuid[])`];
}

/** The SQL of the `conversations` and `conversation_labels` tables, and the one join with the customer and labels that every answer shows. */
@Injectable()
export class ConversationRepository {
  /**
   * The list statement, in one place: the service runs it, the EXPLAIN tests and the bench's raw-pg
   * reference run exactly the same SQL. Newest activity first; every filter combination is served
   * by an index in this order. A reader kept to some inboxes, listing all or one status, walks each
   * of their inboxes (conversations_inbox_status_last_message_idx, or
   * conversations_inbox_last_message_idx without a status), merged in order (Keyset.mergedPage):
   * about as many rows as one walk of everything, however little of the traffic their inboxes have.
   * The other filters (an assignee, a label, a search, unread) are sparse enough that one walk of
   * their own index, keeping the reader's inboxes, reads less. `show` is how the page's rows are
   * shown: the bench's reference passes the computing shape of before issue 28 for the same page.
   */
  listStatement(filter: ConversationFilter, page: PageQuery, readerId: string, show: ShowRows = shown): Sql {
    const where: Sql[] = [];
    if (filter.status) where.push(sql`c.status = ${filter.status}`);
    if (filter.assignedTo === null) where.push(sql`c.assigned_to IS NULL`);
    else if (filter.assignedTo !== undefined) where.push(sql`c.assigned_to = ${filter.assignedTo}`);
    if (filter.inboxId !== undefined) where.push(sql`c.inbox_id = ${filter.inboxId}`);
    if (filter.q)
      where.push(
        sql`c.contact_id IN (SELECT s.id FROM contacts s WHERE ${sql.raw(contactSearchText('s'))} ILIKE ${containsPattern(filter.q)})`,
      );
    if (filter.label)
      where.push(
        sql`c.id IN (SELECT fl.conversation_id FROM conversation_labels fl JOIN labels l ON l.id = fl.label_id WHERE lower(l.name) = lower(${filter.label}))`,
      );
    if (filter.unread) where.push(hasUnread(readerId));
    if (filter.team === 'mine') where.push(sql`c.team_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.user_id = ${readerId})`);
    else if (filter.team !== undefined) where.push(sql`c.team_id = ${filter.team}`);
    const visible = filter.visibleInboxes ?? null;
    if (filter.waiting) {
      // The queue is short (what the router could not hand out): one walk of its partial index, oldest first.
      where.push(sql`c.waiting_since IS NOT NULL`, ...withinInboxes(sql`c.inbox_id`, visible));
      const after = LONGEST_WAITING_FIRST.after(page.cursor);
      if (after) where.push(after);
      const pageRows = sql`(SELECT * FROM conversations c ${sql.where(where)} ${LONGEST_WAITING_FIRST.orderAndLimit(page)})`;
      return sql`${show(pageRows, readerId)} ${LONGEST_WAITING_FIRST.orderAndLimit(page)}`;
    }
    const after = RECENT_FIRST.after(page.cursor);
    if (after) where.push(after);
    const walkedPerInbox =
      visible !== null &&
      filter.inboxId === undefined &&
      filter.assignedTo === undefined &&
      filter.team === undefined &&
      !filter.q &&
      !filter.label &&
      !filter.unread;
    const walk = (inbox: Sql[]) => sql`SELECT * FROM conversations c ${sql.where([...inbox, ...where])}`;
    const pageRows = walkedPerInbox
      ? sql`(${RECENT_FIRST.mergedPage(
          visible.length === 0 ? [walk([sql`false`])] : visible.map((inboxId) => walk([sql`c.inbox_id = ${inboxId}`])),
          'c',
          page,
        )})`
      : sql`(${walk(withinInboxes(sql`c.inbox_id`, visible))} ${RECENT_FIRST.orderAndLimit(page)})`;
    return sql`${show(pageRows, readerId)} ${RECENT_FIRST.orderAndLimit(page)}`;
  }

  /**
   * Whether each connection keeps the plan of this list's statement (RunOptions.keepPlan): a first
   * page of a kept size (mayKeepPlan, at most 20 inboxes walked) filtered by nothing but the status
   * and the inbox. Each is one walk of an index in the list's order (one per inbox for a reader
   * kept to some), limited to the page, whatever the values: the plan made without them suits
   * every request and costs what those made with them do, so PostgreSQL keeps it after five runs.
   * Planning cost about as much as running (an agent of 3 inboxes of 20, 50 rows, 4 clients:
   * 780–880 statements/s planned each time, 1,400–1,590 kept; the admin's one walk 960–1,280 and
   * 1,340–1,690). The other filters are planned each time: how the best plan reads an assignee,
   * the unassigned (an agent's are one walk keeping their inboxes, `ANY` of an array a plan made
   * without it cannot weigh), a team, a search, a label, unread or the queue depends on how many
   * rows their values match (with an assignee kept, PostgreSQL planned each of them apart anyway).
   */
  keepsListPlan(filter: ConversationFilter, page: PageQuery): boolean {
    return (
      mayKeepPlan(page, filter.visibleInboxes?.length ?? 1) &&
      filter.assignedTo === undefined &&
      filter.team === undefined &&
      !filter.waiting &&
      !filter.q &&
      !filter.label &&
      !filter.unread
    );
  }

  /** The list as `readerId` sees it (their unread counts, and their unread ones with `unread`). */
  async list(db: Db, filter: ConversationFilter, page: PageQuery, readerId: string): Promise<Page<ConversationWithCustomer>> {
    const rows = await query<ConversationWithCustomer>(db, this.listStatement(filter, page, readerId), {
      keepPlan: this.keepsListPlan(filter, page),
    });
    return filter.waiting ? LONGEST_WAITING_FIRST.page(rows, page) : this.pageOf(rows, page);
  }

  /**
   * The counts statement (public for the bench's reference): a sum over the ledger of the counts
   * (see the read-state migration), a few hundred rows once folded, whatever the number of
   * conversations. `mine`, `unassigned` and `unread` count open conversations, as the tabs beside
   * `open` show them; `unread` is the open ones the customer wrote in less those whose newest
   * inbound message the user has read.
   */
  countsStatement(userId: string, scope: CountsScope = {}): Sql {
    const total = (counter: string, ofUser = false) =>
      sql`coalesce(sum(delta) FILTER (WHERE counter = ${counter}${ofUser ? sql` AND user_id = ${userId}` : sql``}), 0)`;
    const where = [sql`(user_id IS NULL OR user_id = ${userId})`, ...withinInboxes(sql`inbox_id`, scope.visibleInboxes ?? null)];
    if (scope.inboxId !== undefined) where.push(sql`inbox_id = ${scope.inboxId}`);
    return sql`SELECT ${total('open')}::int AS open, ${total('mine', true)}::int AS mine, ${total('unassigned')}::int AS unassigned,
        ${total('unassigned')}::int AS waiting,
        ${total('snoozed')}::int AS snoozed, ${total('closed')}::int AS closed,
        (${total('received_open')} - ${total('caught_up', true)})::int AS unread
      FROM conversation_counters ${sql.where(where)}`;
  }

  /**
   * Each connection keeps the counts' plan (RunOptions.keepPlan): one read of the ledger whatever
   * the user and inboxes, and planning its seven sums cost as much as running them (4 clients on
   * the bench's seeded database: 6,400–8,000 statements/s planned each time, 14,600–16,700 kept).
   */
  async counts(db: Db, userId: string, scope: CountsScope = {}): Promise<ConversationCounts> {
    return (await query<ConversationCounts>(db, this.countsStatement(userId, scope), { keepPlan: true }))[0];
  }

  /** The inbox of a conversation (it never changes); null when there is no such conversation. */
  async inboxOf(db: Db, id: string): Promise<string | null> {
    return (await queryOne<{ inbox_id: string }>(db, sql`SELECT inbox_id FROM conversations WHERE id = ${id}`))?.inbox_id ?? null;
  }

  /**
   * Folds the ledger of the counts into one row per counter (dropping the zeros), in one
   * statement. Replicas may fold at once: each takes only the rows it deleted, and a row another
   * fold deleted first is skipped, so nothing is counted twice or lost. Then VACUUM, outside any
   * transaction (`db` must not be one): the deleted rows' index entries would otherwise stay
   * until autovacuum's next visit, and every count would step over them.
   */
  async foldCounters(db: Db): Promise<void> {
    await execute(db, FOLD_COUNTERS);
    await execute(db, sql`VACUUM (SKIP_LOCKED) conversation_counters`);
  }

  /** The page of the rows `listStatement` selected (public for the bench's reference, which runs the statement itself). */
  pageOf(rows: ConversationWithCustomer[], page: PageQuery): Page<ConversationWithCustomer> {
    return RECENT_FIRST.page(rows, page);
  }

  /** The conversation as every answer shows it; with the reader's unread count when one is given. */
  findWithCustomer(db: Db, id: string, readerId: string | null = null): Promise<ConversationWithCustomer | null> {
    return queryOne(db, sql`${shown(sql.raw('conversations'), readerId)} WHERE c.id = ${id}`);
  }

  /**
   * Holds the row against changes until the caller's transaction ends, letting other readers
   * hold it too; answers whether it exists.
   */
  async holdShared(db: Db, id: string): Promise<boolean> {
    return (await query(db, sql`SELECT id FROM conversations WHERE id = ${id} FOR SHARE`)).length > 0;
  }

  /**
   * Takes the turn to show "typing…" to the customer: answers true and records it unless it was
   * shown less than `repeatMs` ago (one statement, so two replicas asked at once show it once).
   */
  async claimTyping(db: Db, id: string, repeatMs: number): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`UPDATE conversations SET typing_shown_at = now()
             WHERE id = ${id} AND (typing_shown_at IS NULL OR typing_shown_at <= now() - make_interval(secs => ${repeatMs / 1000}))`,
      )) > 0
    );
  }

  find(db: Db, id: string): Promise<ConversationRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM conversations WHERE id = ${id}`);
  }

  /** The row, locked until the caller's transaction ends. */
  lock(db: Db, id: string): Promise<ConversationRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM conversations WHERE id = ${id} FOR UPDATE`);
  }

  /** When the contact last wrote (the channel's time), to any inbox; null if they never did or have no conversation. */
  /** The contact's conversation the customer wrote in last (on conversations_contact_inbox_key: one row per inbox); null without any. */
  latestInboundOfContact(db: Db, contactId: string): Promise<Pick<ConversationRow, 'last_inbound_at' | 'inbox_id'> | null> {
    return queryOne(
      db,
      sql`SELECT last_inbound_at, inbox_id FROM conversations WHERE contact_id = ${contactId}
           ORDER BY last_inbound_at DESC NULLS LAST, created_at DESC LIMIT 1`,
    );
  }

  /** Every conversation of the contact (one per inbox), locked until the caller's transaction ends, oldest first. */
  lockAllOfContact(db: Db, contactId: string): Promise<ConversationRow[]> {
    return query(db, sql`SELECT ${COLUMNS} FROM conversations WHERE contact_id = ${contactId} ORDER BY created_at, id FOR UPDATE`);
  }

  /** The contact's conversation in this inbox, locked until the caller's transaction ends. */
  lockByContact(db: Db, contactId: string, inboxId: string): Promise<ConversationRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM conversations WHERE contact_id = ${contactId} AND inbox_id = ${inboxId} FOR UPDATE`);
  }

  /**
   * A customer who wrote in this inbox before (nearly every message the channel delivers): their
   * contact, found by the channel's user id or else by phone, and its conversation in the inbox,
   * both locked until the caller's transaction ends (the contact first, as lockByPhone then
   * lockByContact would), and whether a message of this channel id is stored already. One round
   * trip where those are three; null when either row is not there (or moved meanwhile).
   */
  async lockThreadOfCustomer(
    db: Db,
    customer: Pick<ChannelCustomer, 'phone' | 'userId'>,
    inboxId: string,
    channelMessageId: string,
  ): Promise<{ contact: ContactRow; conversation: ConversationRow; known: boolean } | null> {
    const row = await queryOne<Record<string, unknown>>(
      db,
      sql`SELECT ${prefixedColumns('ct', CONTACT_COLUMNS)}, ${prefixedColumns('cv', CONVERSATION_COLUMNS)},
                 EXISTS (SELECT 1 FROM messages WHERE channel_message_id = ${channelMessageId}) AS known
            FROM contacts ct JOIN conversations cv ON cv.contact_id = ct.id AND cv.inbox_id = ${inboxId}
           WHERE ${customer.userId === null ? sql`ct.phone = ${customer.phone}` : sql`ct.wa_user_id = ${customer.userId}`}
           FOR UPDATE OF ct, cv`,
    );
    if (row === null) return null;
    return {
      contact: readPrefixed<ContactRow>(row, 'ct', CONTACT_COLUMNS),
      conversation: readPrefixed<ConversationRow>(row, 'cv', CONVERSATION_COLUMNS),
      known: row.known as boolean,
    };
  }

  /** Inserts unless the contact has a conversation in its inbox already; answers whether it did. */
  async insertUnlessContactHasOne(db: Db, conversation: ConversationRow): Promise<boolean> {
    const inserted = await query(
      db,
      sql`INSERT INTO conversations (${COLUMNS})
          VALUES (${conversation.id}, ${conversation.contact_id}, ${conversation.inbox_id}, ${conversation.status}, ${conversation.assigned_to},
                  ${conversation.last_message_at}, ${conversation.last_inbound_at}, ${conversation.snoozed_until}, ${conversation.last_received_at},
                  ${conversation.last_received_id}, ${conversation.team_id}, ${conversation.waiting_since}, ${conversation.csat_rating},
                  ${conversation.csat_comment}, ${conversation.csat_rated_at}, ${conversation.csat_message_id},
                  ${conversation.csat_comment_until}, ${conversation.last_campaign_at}, ${conversation.created_at},
                  ${conversation.updated_at})
          ON CONFLICT (contact_id, inbox_id) DO NOTHING RETURNING id`,
    );
    return inserted.length > 0;
  }

  async setState(db: Db, id: string, state: ConversationState, at: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE conversations SET status = ${state.status}, assigned_to = ${state.assigned_to}, snoozed_until = ${state.snoozed_until}, updated_at = ${at}
           WHERE id = ${id}`,
    );
  }

  /** The router's assignment of a conversation it holds. */
  async setAssignee(db: Db, id: string, assigneeId: string, at: Date): Promise<void> {
    await execute(db, sql`UPDATE conversations SET assigned_to = ${assigneeId}, updated_at = ${at} WHERE id = ${id}`);
  }

  /** Unassigns those of `ids` still open and assigned to `assigneeId`, skipping rows others hold; answers the ids unassigned. */
  async unassignOpen(db: Db, ids: readonly string[], assigneeId: string, at: Date): Promise<string[]> {
    const rows = await query<{ id: string }>(
      db,
      sql`UPDATE conversations SET assigned_to = NULL, updated_at = ${at}
           WHERE id IN (SELECT h.id FROM conversations h WHERE h.id = ANY(${[...ids]}::uuid[]) FOR UPDATE SKIP LOCKED)
             AND status = 'open' AND assigned_to = ${assigneeId}
       RETURNING id`,
    );
    return rows.map((row) => row.id);
  }

  /** The survey sent for the episode just closed: its answer is the one kept (an earlier answer stays until then). */
  async setSurvey(db: Db, id: string, messageId: string): Promise<void> {
    // A comment is for the rating of this survey: none is awaited until it is answered.
    await execute(db, sql`UPDATE conversations SET csat_message_id = ${messageId}, csat_comment_until = NULL WHERE id = ${id}`);
  }

  /** A rating (its comment cleared, the next text awaited as the new one until `commentUntil`) or that comment. */
  async setSurveyAnswer(db: Db, id: string, answer: { rating: number; at: Date; commentUntil: Date } | { comment: string }): Promise<void> {
    await execute(
      db,
      'rating' in answer
        ? sql`UPDATE conversations SET csat_rating = ${answer.rating}, csat_rated_at = ${answer.at}, csat_comment = NULL,
                     csat_comment_until = ${answer.commentUntil} WHERE id = ${id}`
        : sql`UPDATE conversations SET csat_comment = ${answer.comment}, csat_comment_until = NULL WHERE id = ${id}`,
    );
  }

  /** Takes the conversation's turn for the away message: answers true and records it unless one went less than 12 hours before `at`. */
  async claimAwayMessage(db: Db, id: string, at: Date): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`UPDATE conversations SET away_sent_at = ${at}
             WHERE id = ${id} AND (away_sent_at IS NULL OR away_sent_at <= ${at}::timestamptz - interval '12 hours')`,
      )) > 0
    );
  }

  /**
   * Closes up to `limit` open conversations of the inbox whose last message is at or before
   * `before`, skipping those another transaction holds (a customer writing now), the oldest first
   * on conversations_inbox_status_last_message_idx; answers their ids. Snoozed ones are not open.
   */
  async closeSilent(db: Db, inboxId: string, before: Date, limit: number, at: Date): Promise<string[]> {
    const rows = await query<{ id: string }>(
      db,
      sql`UPDATE conversations SET status = 'closed', updated_at = ${at}
           WHERE id IN (SELECT q.id FROM conversations q WHERE q.inbox_id = ${inboxId} AND q.status = 'open' AND q.last_message_at <= ${before}
                         ORDER BY q.last_message_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
             AND status = 'open' AND last_message_at <= ${before}
       RETURNING id`,
    );
    return rows.map((row) => row.id);
  }

  async setTeam(db: Db, id: string, teamId: string | null, at: Date): Promise<void> {
    await execute(db, sql`UPDATE conversations SET team_id = ${teamId}, updated_at = ${at} WHERE id = ${id}`);
  }

  /** The conversation's labels become exactly these (label ids). */
  async replaceLabels(db: Db, id: string, labelIds: string[]): Promise<void> {
    await execute(db, sql`DELETE FROM conversation_labels WHERE conversation_id = ${id}`);
    if (labelIds.length > 0)
      await execute(db, sql`INSERT INTO conversation_labels (conversation_id, label_id) SELECT ${id}, unnest(${labelIds}::uuid[])`);
  }

  /**
   * Opens up to `limit` snoozed conversations whose time has come, on conversations_snoozed_until_idx,
   * answering their ids. Rows another transaction holds (another replica waking them, a customer's
   * message reopening them) are skipped, and the status condition is checked again on the row as
   * locked, so each snooze ends once: here, or by the customer, never both. Public so the EXPLAIN
   * test runs the same SQL.
   */
  wakeDueStatement(limit: number, at: Date): Sql {
    return sql`UPDATE conversations SET status = 'open', snoozed_until = NULL, updated_at = ${at}
                WHERE id IN (SELECT d.id FROM conversations d WHERE d.status = 'snoozed' AND d.snoozed_until <= now()
                              ORDER BY d.snoozed_until LIMIT ${limit} FOR UPDATE SKIP LOCKED)
                  AND status = 'snoozed'
               RETURNING id`;
  }

  async wakeDue(db: Db, limit: number, at: Date): Promise<string[]> {
    return (await query<{ id: string }>(db, this.wakeDueStatement(limit, at))).map((row) => row.id);
  }

  /**
   * The conversation of one customer given to another (contacts merged, and only the other had a
   * conversation). The 24-hour window is WhatsApp's per phone number, and replies now go to the
   * new customer's: it starts closed, until that customer writes.
   */
  async moveToContact(db: Db, id: string, contactId: string, at: Date): Promise<void> {
    await execute(db, sql`UPDATE conversations SET contact_id = ${contactId}, last_inbound_at = NULL, updated_at = ${at} WHERE id = ${id}`);
  }

  /**
   * The conversation that took in another's messages: its place in the list moves to the later of
   * the two, and so does the mark of the last campaign message (a reply to one moved here counts),
   * and it carries the labels of both.
   */
  async absorb(
    db: Db,
    id: string,
    fromId: string,
    merged: Pick<ConversationRow, 'status' | 'assigned_to' | 'last_message_at' | 'snoozed_until' | 'updated_at'>,
  ): Promise<void> {
    await execute(
      db,
      sql`UPDATE conversations SET status = ${merged.status}, assigned_to = ${merged.assigned_to}, last_message_at = ${merged.last_message_at},
                 snoozed_until = ${merged.snoozed_until}, updated_at = ${merged.updated_at},
                 last_campaign_at = GREATEST(last_campaign_at, (SELECT f.last_campaign_at FROM conversations f WHERE f.id = ${fromId}))
           WHERE id = ${id}`,
    );
    await execute(
      db,
      sql`INSERT INTO conversation_labels (conversation_id, label_id) SELECT ${id}, label_id FROM conversation_labels WHERE conversation_id = ${fromId}
          ON CONFLICT DO NOTHING`,
    );
    // The messages moved first: the newest inbound one of both threads, the preview and the count of
    // the customer's messages are found in this one's; each reader's count is what was before their marker.
    await execute(
      db,
      sql`UPDATE conversations c SET (last_received_at, last_received_id) = (
            SELECT m.created_at, m.id FROM messages m WHERE m.conversation_id = c.id AND m.direction = 'inbound'
             ORDER BY m.created_at DESC, m.id DESC LIMIT 1),
          (preview_id, preview_direction, preview_type, preview_text, preview_created_at) = (
            SELECT m.id, m.direction, m.type, m.text, m.created_at FROM messages m
             WHERE m.conversation_id = c.id AND m.direction <> 'internal' ORDER BY m.created_at DESC, m.id DESC LIMIT 1),
          inbound_count = (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.direction = 'inbound')
           WHERE c.id = ${id}`,
    );
    await execute(
      db,
      sql`UPDATE conversation_reads r SET inbound_read = (
            SELECT count(*) FROM messages m WHERE m.conversation_id = r.conversation_id AND m.direction = 'inbound'
               AND (m.created_at, m.id) <= (r.last_read_at, r.last_read_message_id))
           WHERE r.conversation_id = ${id}`,
    );
  }

  /** Deletes a conversation (its messages must have moved: they would go with it). */
  /**
   * A merge's reports' facts (the episodes and holds the triggers keep for each conversation):
   * the other conversation's open episode joins this one's (its customer's first message, its first
   * answer when this one has none, its time in the queue), and its past episodes become this one's,
   * so deleting it after takes no history with it. Called after `absorb`, before `delete`.
   */
  async mergeFacts(db: Db, intoId: string, fromId: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE conversation_episodes i
             SET opened_at = LEAST(i.opened_at, f.opened_at),
                 customer_wrote_at = LEAST(i.customer_wrote_at, f.customer_wrote_at),
                 first_response_at = COALESCE(i.first_response_at, f.first_response_at),
                 first_responder_id = CASE WHEN i.first_response_at IS NULL THEN f.first_responder_id ELSE i.first_responder_id END,
                 first_response_team_id = CASE WHEN i.first_response_at IS NULL THEN f.first_response_team_id ELSE i.first_response_team_id END,
                 first_response_seconds = COALESCE(i.first_response_seconds, f.first_response_seconds),
                 first_response_business_seconds = COALESCE(i.first_response_business_seconds, f.first_response_business_seconds),
                 waiting_seconds = i.waiting_seconds + f.waiting_seconds
            FROM conversation_episodes f
           WHERE i.conversation_id = ${intoId} AND i.resolved_at IS NULL AND f.conversation_id = ${fromId} AND f.resolved_at IS NULL`,
    );
    await execute(db, sql`DELETE FROM conversation_episodes WHERE conversation_id = ${fromId} AND resolved_at IS NULL`);
    await execute(db, sql`UPDATE conversation_episodes SET conversation_id = ${intoId} WHERE conversation_id = ${fromId}`);
    await execute(db, sql`UPDATE conversation_holds SET conversation_id = ${intoId} WHERE conversation_id = ${fromId}`);
  }

  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM conversations WHERE id = ${id}`);
  }

  /** An agent's message: the conversation moves to the top of the list; a campaign's also marks when a campaign last wrote. */
  async recordOutbound(db: Db, id: string, at: Date, forCampaign = false): Promise<void> {
    await execute(
      db,
      sql`UPDATE conversations SET last_message_at = ${at}, updated_at = ${at}${forCampaign ? sql`, last_campaign_at = GREATEST(last_campaign_at, ${at})` : sql``}
           WHERE id = ${id}`,
    );
  }

  /**
   * An inbound message, `received` (its created_at and id): the list order moves forward, and the
   * newest inbound message, unread until each reader's marker passes it. A customer's own message
   * (`windowFrom`, the channel's timestamp) also moves the 24-hour window forward; a system
   * message does not. Never back: the channel redelivers out of order.
   */
  async recordInbound(
    db: Db,
    id: string,
    received: { id: string; at: Date },
    windowFrom: Date | null,
  ): Promise<ConversationRow & { labels: string[] }> {
    const newer = sql`(last_received_id IS NULL OR (last_received_at, last_received_id) < (${received.at}::timestamptz, ${received.id}::uuid))`;
    // Answers the row as updated and its labels, which with the contact and the message make the
    // event's conversation without reading it again.
    const [updated] = await query<ConversationRow & { labels: string[] }>(
      db,
      sql`UPDATE conversations c SET last_message_at = GREATEST(last_message_at, ${received.at}),
                 last_inbound_at = GREATEST(last_inbound_at, ${windowFrom}::timestamptz),
                 last_received_at = CASE WHEN ${newer} THEN ${received.at}::timestamptz ELSE last_received_at END,
                 last_received_id = CASE WHEN ${newer} THEN ${received.id}::uuid ELSE last_received_id END,
                 updated_at = ${received.at}
           WHERE id = ${id}
       RETURNING ${COLUMNS}, label_names AS labels`,
    );
    return updated;
  }
}

import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { containsPattern } from '../common/search';
import { contactSearchText } from '../contacts/contact.entity';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { ConversationRow, ConversationStatus, ConversationWithCustomer } from './conversation.entity';

/**
 * Conversations `c` (the table, or a page of it selected first) as every answer shows them: with
 * the customer, the label names (one subquery on conversation_labels_pkey) and the newest message
 * of the exchange with the customer (one probe of messages_conversation_created_idx; notes are
 * the team's, not the exchange). A list selects its page first, so these run for the page's rows
 * only, and the planner chooses the page's index as if they were not there.
 */
function shown(conversations: Sql): Sql {
  return sql`SELECT c.id, c.status, c.assigned_to, c.last_message_at, c.last_inbound_at, c.snoozed_until, c.created_at, c.updated_at,
    ct.name AS customer_name, ct.phone AS customer_phone,
    ARRAY(SELECT l.name FROM conversation_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.conversation_id = c.id) AS labels,
    lm.id AS last_message_id, lm.direction AS last_message_direction, lm.type AS last_message_type, lm.text AS last_message_text,
    lm.status AS last_message_status, lm.created_at AS last_message_created_at
  FROM ${conversations} c JOIN contacts ct ON ct.id = c.contact_id
  LEFT JOIN LATERAL (SELECT m.id, m.direction, m.type, m.text, m.status, m.created_at FROM messages m
                      WHERE m.conversation_id = c.id AND m.direction <> 'internal' ORDER BY m.created_at DESC, m.id DESC LIMIT 1) lm ON true`;
}
const WITH_CUSTOMER = shown(sql.raw('conversations'));
const COLUMNS = sql.raw('id, contact_id, status, assigned_to, last_message_at, last_inbound_at, snoozed_until, created_at, updated_at');
const RECENT_FIRST = new Keyset<ConversationWithCustomer>({ time: 'c.last_message_at', id: 'c.id' }, 'DESC', (row) => [
  row.last_message_at,
  row.id,
]);

export interface ConversationFilter {
  status?: ConversationStatus;
  /** A user's uuid, or null for the unassigned ones. */
  assignedTo?: string | null;
  /** Part of the customer's name, phone or e-mail, case-insensitive. */
  q?: string;
  /** A label's name, case-insensitive. */
  label?: string;
}

/** What an agent changes on a conversation: its status (with the snooze time exactly while snoozed) and its assignee. */
export interface ConversationState {
  status: ConversationStatus;
  assigned_to: string | null;
  snoozed_until: Date | null;
}

/** The SQL of the `conversations` and `conversation_labels` tables, and the one join with the customer and labels that every answer shows. */
@Injectable()
export class ConversationRepository {
  /**
   * The list statement, in one place: the service runs it, the EXPLAIN tests and the bench's raw-pg
   * reference run exactly the same SQL. Newest activity first; every filter combination is served
   * by an index in this order.
   */
  listStatement(filter: ConversationFilter, page: PageQuery): Sql {
    const where: Sql[] = [];
    if (filter.status) where.push(sql`c.status = ${filter.status}`);
    if (filter.assignedTo === null) where.push(sql`c.assigned_to IS NULL`);
    else if (filter.assignedTo !== undefined) where.push(sql`c.assigned_to = ${filter.assignedTo}`);
    if (filter.q)
      where.push(
        sql`c.contact_id IN (SELECT s.id FROM contacts s WHERE ${sql.raw(contactSearchText('s'))} ILIKE ${containsPattern(filter.q)})`,
      );
    if (filter.label)
      where.push(
        sql`c.id IN (SELECT fl.conversation_id FROM conversation_labels fl JOIN labels l ON l.id = fl.label_id WHERE lower(l.name) = lower(${filter.label}))`,
      );
    const after = RECENT_FIRST.after(page.cursor);
    if (after) where.push(after);
    const pageRows = sql`(SELECT * FROM conversations c ${sql.where(where)} ${RECENT_FIRST.orderAndLimit(page)})`;
    return sql`${shown(pageRows)} ${RECENT_FIRST.orderAndLimit(page)}`;
  }

  async list(db: Db, filter: ConversationFilter, page: PageQuery): Promise<Page<ConversationWithCustomer>> {
    return this.pageOf(await query<ConversationWithCustomer>(db, this.listStatement(filter, page)), page);
  }

  /** The page of the rows `listStatement` selected (public for the bench's reference, which runs the statement itself). */
  pageOf(rows: ConversationWithCustomer[], page: PageQuery): Page<ConversationWithCustomer> {
    return RECENT_FIRST.page(rows, page);
  }

  findWithCustomer(db: Db, id: string): Promise<ConversationWithCustomer | null> {
    return queryOne(db, sql`${WITH_CUSTOMER} WHERE c.id = ${id}`);
  }

  /** The row, locked until the caller's transaction ends. */
  lock(db: Db, id: string): Promise<ConversationRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM conversations WHERE id = ${id} FOR UPDATE`);
  }

  /** The contact's conversation, locked until the caller's transaction ends. */
  lockByContact(db: Db, contactId: string): Promise<ConversationRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM conversations WHERE contact_id = ${contactId} FOR UPDATE`);
  }

  /** Inserts unless the contact has a conversation already; answers whether it did. */
  async insertUnlessContactHasOne(db: Db, conversation: ConversationRow): Promise<boolean> {
    const inserted = await query(
      db,
      sql`INSERT INTO conversations (${COLUMNS})
          VALUES (${conversation.id}, ${conversation.contact_id}, ${conversation.status}, ${conversation.assigned_to}, ${conversation.last_message_at},
                  ${conversation.last_inbound_at}, ${conversation.snoozed_until}, ${conversation.created_at}, ${conversation.updated_at})
          ON CONFLICT (contact_id) DO NOTHING RETURNING id`,
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
   * the two, and it carries the labels of both.
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
                 snoozed_until = ${merged.snoozed_until}, updated_at = ${merged.updated_at}
           WHERE id = ${id}`,
    );
    await execute(
      db,
      sql`INSERT INTO conversation_labels (conversation_id, label_id) SELECT ${id}, label_id FROM conversation_labels WHERE conversation_id = ${fromId}
          ON CONFLICT DO NOTHING`,
    );
  }

  /** Deletes a conversation (its messages must have moved: they would go with it). */
  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM conversations WHERE id = ${id}`);
  }

  /** An agent's message: the conversation moves to the top of the list. */
  async recordOutbound(db: Db, id: string, at: Date): Promise<void> {
    await execute(db, sql`UPDATE conversations SET last_message_at = ${at}, updated_at = ${at} WHERE id = ${id}`);
  }

  /** A message that is not the customer's own (a system message): the list order moves forward, the 24-hour window does not. */
  async recordActivity(db: Db, id: string, at: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE conversations SET last_message_at = GREATEST(last_message_at, ${at}), updated_at = ${at} WHERE id = ${id}`,
    );
  }

  /** A customer's message: the list order and the 24-hour window move forward, never back (the channel redelivers out of order). */
  async recordInbound(db: Db, id: string, at: Date, channelTimestamp: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE conversations SET last_message_at = GREATEST(last_message_at, ${at}), last_inbound_at = GREATEST(last_inbound_at, ${channelTimestamp}), updated_at = ${at}
           WHERE id = ${id}`,
    );
  }
}

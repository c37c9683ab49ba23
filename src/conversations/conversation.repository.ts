import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { containsPattern } from '../common/search';
import { contactSearchText } from '../contacts/contact.entity';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { ConversationRow, ConversationStatus, ConversationWithCustomer } from './conversation.entity';

/** A conversation joined with its customer: `FROM conversations c JOIN contacts ct ON ct.id = c.contact_id`. */
const WITH_CUSTOMER =
  sql.raw(`SELECT c.id, c.status, c.assigned_to, c.last_message_at, c.created_at, c.updated_at, ct.name AS customer_name, ct.phone AS customer_phone
  FROM conversations c JOIN contacts ct ON ct.id = c.contact_id`);
const COLUMNS = sql.raw('id, contact_id, status, assigned_to, last_message_at, last_inbound_at, created_at, updated_at');
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
}

/** The SQL of the `conversations` table, and the one join with the customer that every answer shows. */
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
    const after = RECENT_FIRST.after(page.cursor);
    if (after) where.push(after);
    return sql`${WITH_CUSTOMER} ${sql.where(where)} ${RECENT_FIRST.orderAndLimit(page)}`;
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
      sql`INSERT INTO conversations (id, contact_id, status, assigned_to, last_message_at, last_inbound_at, created_at, updated_at)
          VALUES (${conversation.id}, ${conversation.contact_id}, ${conversation.status}, ${conversation.assigned_to}, ${conversation.last_message_at},
                  ${conversation.last_inbound_at}, ${conversation.created_at}, ${conversation.updated_at})
          ON CONFLICT (contact_id) DO NOTHING RETURNING id`,
    );
    return inserted.length > 0;
  }

  async setStatusAndAssignee(db: Db, id: string, status: ConversationStatus, assignedTo: string | null, at: Date): Promise<void> {
    await execute(db, sql`UPDATE conversations SET status = ${status}, assigned_to = ${assignedTo}, updated_at = ${at} WHERE id = ${id}`);
  }

  /**
   * The conversation of one customer given to another (contacts merged, and only the other had a
   * conversation). The 24-hour window is WhatsApp's per phone number, and replies now go to the
   * new customer's: it starts closed, until that customer writes.
   */
  async moveToContact(db: Db, id: string, contactId: string, at: Date): Promise<void> {
    await execute(db, sql`UPDATE conversations SET contact_id = ${contactId}, last_inbound_at = NULL, updated_at = ${at} WHERE id = ${id}`);
  }

  /** The conversation that took in another's messages: its place in the list moves to the later of the two. */
  async absorb(
    db: Db,
    id: string,
    merged: Pick<ConversationRow, 'status' | 'assigned_to' | 'last_message_at' | 'updated_at'>,
  ): Promise<void> {
    await execute(
      db,
      sql`UPDATE conversations SET status = ${merged.status}, assigned_to = ${merged.assigned_to}, last_message_at = ${merged.last_message_at},
                 updated_at = ${merged.updated_at}
           WHERE id = ${id}`,
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

  /** A customer's message: the list order and the 24-hour window move forward, never back (the channel redelivers out of order). */
  async recordInbound(db: Db, id: string, at: Date, channelTimestamp: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE conversations SET last_message_at = GREATEST(last_message_at, ${at}), last_inbound_at = GREATEST(last_inbound_at, ${channelTimestamp}), updated_at = ${at}
           WHERE id = ${id}`,
    );
  }
}

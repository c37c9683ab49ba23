import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { containsPattern } from '../common/search';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import { contactSearchText, type ContactRow } from './contact.entity';

/** A contact's columns (ContactRow), as statements that read contacts with another table select them (prefixedColumns). */
export const CONTACT_COLUMNS = [
  'id',
  'phone',
  'wa_user_id',
  'username',
  'name',
  'email',
  'tags',
  'attributes',
  'blocked_at',
  'opted_out_at',
  'created_at',
  'updated_at',
] as const;
const COLUMNS = sql.raw(CONTACT_COLUMNS.map((column) => `c.${column}`).join(', '));
const NEWEST_FIRST = new Keyset<ContactRow>({ time: 'c.created_at', id: 'c.id' }, 'DESC', (row) => [row.created_at, row.id]);

/** Contacts as `jsonb_to_recordset` reads them from one JSON parameter: a batch is one statement with one parameter, whatever its size. */
const CONTACT_RECORDS = sql.raw(
  'r(id uuid, phone text, wa_user_id text, username text, name text, email text, tags text[], attributes jsonb, created_at timestamptz, updated_at timestamptz)',
);

export interface ContactFilter {
  /** Part of the name, phone, e-mail or username, case-insensitive. */
  q?: string;
  tag?: string;
  /** An inbox's uuid: only the customers with a conversation in it. */
  inboxId?: string;
}

/** The SQL of the `contacts` table. */
@Injectable()
export class ContactRepository {
  /**
   * The one statement behind the list and each page of the CSV export: newest first on
   * contacts_created_at_id_idx, `q` on contacts_search_idx, `tag` on contacts_tags_idx. Public so
   * the tests can EXPLAIN it.
   */
  listStatement(filter: ContactFilter, page: PageQuery): Sql {
    const where = this.filterConditions(filter);
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    return sql`SELECT ${COLUMNS} FROM contacts c ${sql.where(where)} ${NEWEST_FIRST.orderAndLimit(page)}`;
  }

  async list(db: Db, filter: ContactFilter, page: PageQuery): Promise<Page<ContactRow>> {
    return NEWEST_FIRST.page(await query<ContactRow>(db, this.listStatement(filter, page)), page);
  }

  /** Every attribute key the contacts of the filter use, in code-point order: the CSV export's extra columns. */
  async attributeKeys(db: Db, filter: ContactFilter): Promise<string[]> {
    const where = this.filterConditions(filter);
    where.push(sql`c.attributes <> '{}'::jsonb`);
    const rows = await query<{ key: string }>(
      db,
      sql`SELECT DISTINCT k.key FROM contacts c CROSS JOIN LATERAL jsonb_object_keys(c.attributes) AS k(key) ${sql.where(where)}`,
    );
    return rows.map((row) => row.key).sort();
  }

  /** `lock`: held until the caller's transaction ends. */
  find(db: Db, id: string, lock = false): Promise<ContactRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM contacts c WHERE c.id = ${id} ${sql.raw(lock ? 'FOR UPDATE' : '')}`);
  }

  /** The contact with this phone, locked until the caller's transaction ends. */
  lockByPhone(db: Db, phone: string): Promise<ContactRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM contacts c WHERE c.phone = ${phone} FOR UPDATE`);
  }

  /** The contact the channel knows by this business-scoped user id, locked until the caller's transaction ends. */
  lockByUserId(db: Db, userId: string): Promise<ContactRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM contacts c WHERE c.wa_user_id = ${userId} FOR UPDATE`);
  }

  /**
   * The contacts with these ids or phones, locked until the caller's transaction ends, in phone
   * order: every statement that locks several contacts locks them in that order (the import, the
   * merge), so two of them never wait for each other in a circle.
   */
  lockMany(db: Db, by: { ids?: string[]; phones?: string[]; userIds?: string[] }): Promise<ContactRow[]> {
    const condition = by.ids
      ? sql`c.id = ANY(${by.ids}::uuid[])`
      : sql`(c.phone = ANY(${by.phones ?? []}::text[]) OR c.wa_user_id = ANY(${by.userIds ?? []}::text[]))`;
    return query(db, sql`SELECT ${COLUMNS} FROM contacts c WHERE ${condition} ORDER BY c.phone, c.id FOR UPDATE`);
  }

  async insert(db: Db, contact: ContactRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO contacts (id, phone, wa_user_id, username, name, email, tags, attributes, created_at, updated_at)
          VALUES (${contact.id}, ${contact.phone}, ${contact.wa_user_id}, ${contact.username}, ${contact.name}, ${contact.email}, ${contact.tags},
                  ${JSON.stringify(contact.attributes)}, ${contact.created_at}, ${contact.updated_at})`,
    );
  }

  /** Inserts unless the phone or the user id is taken (by a concurrent first message); answers whether it did. */
  async insertUnlessTaken(db: Db, contact: ContactRow): Promise<boolean> {
    return (await this.insertManyUnlessTaken(db, [contact])) > 0;
  }

  /** Inserts the contacts whose phone and user id are free, in one statement; answers how many it inserted. */
  async insertManyUnlessTaken(db: Db, contacts: ContactRow[]): Promise<number> {
    if (contacts.length === 0) return 0;
    const inserted = await query<{ id: string }>(
      db,
      sql`INSERT INTO contacts (id, phone, wa_user_id, username, name, email, tags, attributes, created_at, updated_at)
          SELECT r.id, r.phone, r.wa_user_id, r.username, r.name, r.email, coalesce(r.tags, '{}'), r.attributes, r.created_at, r.updated_at
            FROM jsonb_to_recordset(${JSON.stringify(contacts)}::jsonb) AS ${CONTACT_RECORDS}
          ON CONFLICT DO NOTHING RETURNING id`,
    );
    return inserted.length;
  }

  async update(db: Db, contact: ContactRow): Promise<void> {
    await this.updateMany(db, [contact]);
  }

  /** Writes every field of these contacts, found by id, in one statement. */
  async updateMany(db: Db, contacts: ContactRow[]): Promise<void> {
    if (contacts.length === 0) return;
    await execute(
      db,
      sql`UPDATE contacts c SET phone = r.phone, wa_user_id = r.wa_user_id, username = r.username, name = r.name, email = r.email,
                 tags = coalesce(r.tags, '{}'), attributes = r.attributes, updated_at = r.updated_at
            FROM jsonb_to_recordset(${JSON.stringify(contacts)}::jsonb) AS ${CONTACT_RECORDS}
           WHERE c.id = r.id`,
    );
  }

  /** Marks the customer blocked (at a time) or not (null); answers the contact as it now is. */
  async setBlocked(db: Db, id: string, block: { at: Date; inboxId: string } | null, at: Date): Promise<ContactRow | null> {
    return queryOne(
      db,
      sql`UPDATE contacts c SET blocked_at = ${block?.at ?? null}, blocked_inbox_id = ${block?.inboxId ?? null}, updated_at = ${at}
           WHERE c.id = ${id} RETURNING ${COLUMNS}`,
    );
  }

  /** Marks the customer opted out of campaigns (since `optedOutAt`) or in (null); answers the contact as it now is. */
  async setOptedOut(db: Db, id: string, optedOutAt: Date | null, at: Date): Promise<ContactRow | null> {
    return queryOne(
      db,
      sql`UPDATE contacts c SET opted_out_at = ${optedOutAt}, updated_at = ${at} WHERE c.id = ${id} RETURNING ${COLUMNS}`,
    );
  }

  /** The inbox whose number the customer is blocked on; null when not blocked (or its inbox is gone). */
  async blockedInboxOf(db: Db, id: string): Promise<string | null> {
    return (
      (await queryOne<{ blocked_inbox_id: string | null }>(db, sql`SELECT blocked_inbox_id FROM contacts WHERE id = ${id}`))
        ?.blocked_inbox_id ?? null
    );
  }

  /** Fails on the foreign key (23503) while a conversation points at the contact. */
  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM contacts WHERE id = ${id}`);
  }

  /** The list's filter as conditions on `contacts c`. */
  private filterConditions(filter: ContactFilter): Sql[] {
    const where: Sql[] = [];
    if (filter.q) where.push(sql`${sql.raw(contactSearchText('c'))} ILIKE ${containsPattern(filter.q)}`);
    if (filter.tag) where.push(sql`c.tags @> ARRAY[${filter.tag}]::text[]`);
    if (filter.inboxId) where.push(sql`c.id IN (SELECT v.contact_id FROM conversations v WHERE v.inbox_id = ${filter.inboxId})`);
    return where;
  }
}

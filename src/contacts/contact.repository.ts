import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { containsPattern } from '../common/search';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import { contactSearchText, type ContactRow } from './contact.entity';

const COLUMNS = sql.raw('c.id, c.phone, c.name, c.email, c.tags, c.created_at, c.updated_at');
const NEWEST_FIRST = new Keyset<ContactRow>({ time: 'c.created_at', id: 'c.id' }, 'DESC', (row) => [row.created_at, row.id]);

export interface ContactFilter {
  /** Part of the name, phone or e-mail, case-insensitive. */
  q?: string;
  tag?: string;
}

/** The SQL of the `contacts` table. */
@Injectable()
export class ContactRepository {
  /**
   * The one statement behind the list: newest first on contacts_created_at_id_idx, `q` on
   * contacts_search_idx, `tag` on contacts_tags_idx. Public so the tests can EXPLAIN it.
   */
  listStatement(filter: ContactFilter, page: PageQuery): Sql {
    const where: Sql[] = [];
    if (filter.q) where.push(sql`${sql.raw(contactSearchText('c'))} ILIKE ${containsPattern(filter.q)}`);
    if (filter.tag) where.push(sql`c.tags @> ARRAY[${filter.tag}]::text[]`);
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    return sql`SELECT ${COLUMNS} FROM contacts c ${sql.where(where)} ${NEWEST_FIRST.orderAndLimit(page)}`;
  }

  async list(db: Db, filter: ContactFilter, page: PageQuery): Promise<Page<ContactRow>> {
    return NEWEST_FIRST.page(await query<ContactRow>(db, this.listStatement(filter, page)), page);
  }

  /** `lock`: held until the caller's transaction ends. */
  find(db: Db, id: string, lock = false): Promise<ContactRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM contacts c WHERE c.id = ${id} ${sql.raw(lock ? 'FOR UPDATE' : '')}`);
  }

  /** The contact with this phone, locked until the caller's transaction ends. */
  lockByPhone(db: Db, phone: string): Promise<ContactRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM contacts c WHERE c.phone = ${phone} FOR UPDATE`);
  }

  async insert(db: Db, contact: ContactRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO contacts (id, phone, name, email, tags, created_at, updated_at)
          VALUES (${contact.id}, ${contact.phone}, ${contact.name}, ${contact.email}, ${contact.tags}, ${contact.created_at}, ${contact.updated_at})`,
    );
  }

  /** Inserts unless the phone is taken; answers whether it did. */
  async insertUnlessPhoneTaken(db: Db, contact: ContactRow): Promise<boolean> {
    const inserted = await query(
      db,
      sql`INSERT INTO contacts (id, phone, name, email, tags, created_at, updated_at)
          VALUES (${contact.id}, ${contact.phone}, ${contact.name}, ${contact.email}, ${contact.tags}, ${contact.created_at}, ${contact.updated_at})
          ON CONFLICT (phone) DO NOTHING RETURNING id`,
    );
    return inserted.length > 0;
  }

  async update(db: Db, contact: ContactRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE contacts SET phone = ${contact.phone}, name = ${contact.name}, email = ${contact.email}, tags = ${contact.tags}, updated_at = ${contact.updated_at}
           WHERE id = ${contact.id}`,
    );
  }

  /** Fails on the foreign key (23503) while a conversation points at the contact. */
  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM contacts WHERE id = ${id}`);
  }
}

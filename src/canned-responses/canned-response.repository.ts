import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { containsPattern, foldForSearch, prefixPattern, searchWords } from '../common/search';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { CannedResponseRow } from './canned-response.entity';

const COLUMNS = sql.raw('cr.id, cr.shortcut, cr.text, cr.interactive, cr.created_by, cr.created_at, cr.updated_at');
const NEWEST_FIRST = new Keyset<CannedResponseRow>({ time: 'cr.created_at', id: 'cr.id' }, 'DESC', (row) => [row.created_at, row.id]);

/** The SQL of the `canned_responses` table. */
@Injectable()
export class CannedResponseRepository {
  /**
   * The one statement behind the list, newest first on canned_responses_created_at_id_idx. `q`
   * matches a shortcut starting with it (canned_responses_shortcut_key, text_pattern_ops) or a
   * text holding every word of it (canned_responses_text_search_idx, trigrams), both on the folded
   * columns. A leading `/` (how agents call up a canned response) is not part of the shortcut.
   * Public so the tests can EXPLAIN it.
   */
  listStatement(filter: { q?: string }, page: PageQuery): Sql {
    const where: Sql[] = [];
    const words = filter.q ? searchWords(filter.q) : [];
    if (words.length > 0) {
      const shortcut = sql`cr.folded_shortcut LIKE ${prefixPattern(foldForSearch(filter.q!.trim()).replace(/^\//, ''))}`;
      const text = sql.join(
        words.map((word) => sql`cr.folded_text LIKE ${containsPattern(word)}`),
        ' AND ',
      );
      where.push(sql`(${shortcut} OR (${text}))`);
    }
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    return sql`SELECT ${COLUMNS} FROM canned_responses cr ${sql.where(where)} ${NEWEST_FIRST.orderAndLimit(page)}`;
  }

  async list(db: Db, filter: { q?: string }, page: PageQuery): Promise<Page<CannedResponseRow>> {
    return NEWEST_FIRST.page(await query<CannedResponseRow>(db, this.listStatement(filter, page)), page);
  }

  /** `lock`: held until the caller's transaction ends. */
  find(db: Db, id: string, lock = false): Promise<CannedResponseRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM canned_responses cr WHERE cr.id = ${id} ${sql.raw(lock ? 'FOR UPDATE' : '')}`);
  }

  /** Fails on canned_responses_shortcut_key (23505) when the folded shortcut is taken. */
  async insert(db: Db, row: CannedResponseRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO canned_responses (id, shortcut, text, interactive, folded_shortcut, folded_text, created_by, created_at, updated_at)
          VALUES (${row.id}, ${row.shortcut}, ${row.text}, ${jsonOrNull(row.interactive)}, ${foldForSearch(row.shortcut)},
                  ${foldForSearch(row.text)}, ${row.created_by}, ${row.created_at}, ${row.updated_at})`,
    );
  }

  /** Fails on canned_responses_shortcut_key (23505) when the folded shortcut is taken. */
  async update(db: Db, row: CannedResponseRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE canned_responses SET shortcut = ${row.shortcut}, text = ${row.text}, interactive = ${jsonOrNull(row.interactive)},
                 folded_shortcut = ${foldForSearch(row.shortcut)},
                 folded_text = ${foldForSearch(row.text)}, updated_at = ${row.updated_at}
           WHERE id = ${row.id}`,
    );
  }

  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM canned_responses WHERE id = ${id}`);
  }
}

function jsonOrNull(value: Record<string, unknown> | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

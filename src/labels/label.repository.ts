import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { LabelRow } from './label.entity';

const COLUMNS = sql.raw('id, name, color, created_at, updated_at');
const OLDEST_FIRST = new Keyset<LabelRow>({ time: 'created_at', id: 'id' }, 'ASC', (row) => [row.created_at, row.id]);

/** The SQL of the `labels` table. */
@Injectable()
export class LabelRepository {
  /** The catalogue in the order it was built, on labels_created_at_id_idx. */
  async list(db: Db, page: PageQuery): Promise<Page<LabelRow>> {
    const after = OLDEST_FIRST.after(page.cursor);
    return OLDEST_FIRST.page(
      await query<LabelRow>(db, sql`SELECT ${COLUMNS} FROM labels ${sql.where(after ? [after] : [])} ${OLDEST_FIRST.orderAndLimit(page)}`),
      page,
    );
  }

  /**
   * `lock`, held until the caller's transaction ends: `update` for a change that does not delete
   * it (a link's foreign key check, FOR KEY SHARE, is not blocked), `delete` for its deletion.
   */
  find(db: Db, id: string, lock?: 'update' | 'delete'): Promise<LabelRow | null> {
    const clause = lock === undefined ? '' : lock === 'update' ? 'FOR NO KEY UPDATE' : 'FOR UPDATE';
    return queryOne(db, sql`SELECT ${COLUMNS} FROM labels WHERE id = ${id} ${sql.raw(clause)}`);
  }

  /**
   * The labels these names name (case-insensitively, on labels_name_key), held with a share lock
   * until the caller's transaction ends: a label being deleted meanwhile is waited for, then not
   * found; one found cannot be deleted before the caller commits.
   */
  findByNamesForShare(db: Db, names: string[]): Promise<LabelRow[]> {
    return query<LabelRow>(
      db,
      sql`SELECT ${COLUMNS} FROM labels WHERE lower(name) = ANY(SELECT lower(n) FROM unnest(${names}::text[]) n) ORDER BY id FOR SHARE`,
    );
  }

  /** Fails on labels_name_key when the name is taken (case-insensitively). */
  async insert(db: Db, label: LabelRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO labels (${COLUMNS}) VALUES (${label.id}, ${label.name}, ${label.color}, ${label.created_at}, ${label.updated_at})`,
    );
  }

  /** Fails on labels_name_key when the new name is taken (case-insensitively). */
  async update(db: Db, label: LabelRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE labels SET name = ${label.name}, color = ${label.color}, updated_at = ${label.updated_at} WHERE id = ${label.id}`,
    );
  }

  /** The label leaves every conversation with it too (conversation_labels cascades). */
  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM labels WHERE id = ${id}`);
  }
}

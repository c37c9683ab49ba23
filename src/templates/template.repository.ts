import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { containsPattern } from '../common/search';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { WorkKind } from '../recorded-work/work-kind';
import { SANDBOX_CATALOGUE } from '../channel/channel-client';
import { DELETED_STATUS, type TemplateReference, type TemplateRow, type TemplateSyncRow } from './template.entity';

const COLUMNS = sql.raw(
  't.id, t.catalogue, t.name, t.language, t.channel_template_id, t.category, t.status, t.parameter_format, t.components, t.parameters, t.created_at, t.updated_at',
);
const SYNC_COLUMNS = sql.raw('id, attempts, failures, next_attempt_at, claimed_by, synced_at, error');
const RECENTLY_CHANGED_FIRST = new Keyset<TemplateRow>({ time: 't.updated_at', id: 't.id' }, 'DESC', (row) => [row.updated_at, row.id]);

/**
 * Each catalogue's sync as recorded work that never finishes (alias `w`, one row per catalogue,
 * whichever replica runs it): always due again later, or parked (no due time) while no active
 * inbox reads the catalogue.
 */
export const SYNC_WORK = {
  table: 'template_syncs',
  idType: 'text',
  // Its rows are named by their catalogue: a business account's id (digits) or the sandbox's key.
  waiting: sql`w.next_attempt_at IS NOT NULL AND (w.id ~ '^[0-9]+$' OR w.id = ${SANDBOX_CATALOGUE})`,
  needs: { columns: SYNC_COLUMNS },
} satisfies Pick<WorkKind, 'table' | 'idType' | 'waiting' | 'needs'>;

export interface TemplateFilter {
  /** Only the templates of these catalogues. */
  catalogues: readonly string[];
  status?: string;
  language?: string;
  /** Part of the name, case-insensitive. */
  q?: string;
}

/** A template as a sync stores it. */
export type SyncedTemplate = Pick<
  TemplateRow,
  | 'id'
  | 'catalogue'
  | 'name'
  | 'language'
  | 'channel_template_id'
  | 'category'
  | 'status'
  | 'parameter_format'
  | 'components'
  | 'parameters'
>;

/** The SQL of `templates` (one catalogue per business account) and `template_syncs` (one sync per catalogue). */
@Injectable()
export class TemplateRepository {
  /**
   * The list statement: most recently changed first on templates_updated_idx; `status` on
   * templates_status_updated_idx, `language` on templates_language_updated_idx, `q` on
   * templates_name_search_idx. Public so the tests can EXPLAIN it.
   */
  listStatement(filter: TemplateFilter, page: PageQuery): Sql {
    const where: Sql[] = [sql`t.catalogue = ANY(${[...filter.catalogues]}::text[])`];
    if (filter.status) where.push(sql`t.status = ${filter.status}`);
    if (filter.language) where.push(sql`t.language = ${filter.language}`);
    if (filter.q) where.push(sql`t.name ILIKE ${containsPattern(filter.q)}`);
    const after = RECENTLY_CHANGED_FIRST.after(page.cursor);
    if (after) where.push(after);
    return sql`SELECT ${COLUMNS} FROM templates t ${sql.where(where)} ${RECENTLY_CHANGED_FIRST.orderAndLimit(page)}`;
  }

  async list(db: Db, filter: TemplateFilter, page: PageQuery): Promise<Page<TemplateRow>> {
    return RECENTLY_CHANGED_FIRST.page(await query<TemplateRow>(db, this.listStatement(filter, page)), page);
  }

  find(db: Db, id: string): Promise<TemplateRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM templates t WHERE t.id = ${id}`);
  }

  findByNameAndLanguage(db: Db, catalogue: string, name: string, language: string): Promise<TemplateRow | null> {
    return queryOne(
      db,
      sql`SELECT ${COLUMNS} FROM templates t WHERE t.catalogue = ${catalogue} AND t.name = ${name} AND t.language = ${language}`,
    );
  }

  /** The languages the catalogue has a template of this name in. */
  async languagesOf(db: Db, catalogue: string, name: string): Promise<string[]> {
    const rows = await query<{ language: string }>(
      db,
      sql`SELECT language FROM templates WHERE catalogue = ${catalogue} AND name = ${name} ORDER BY language`,
    );
    return rows.map((row) => row.language);
  }

  /**
   * Inserts the templates, or updates those their catalogue has (by name and language); a row
   * whose fields are all the same is left as it is, its updated_at too. One statement for the
   * whole catalogue (the names and languages must be distinct).
   */
  async upsert(db: Db, templates: SyncedTemplate[], at: Date): Promise<void> {
    if (templates.length === 0) return;
    await execute(
      db,
      sql`INSERT INTO templates (id, catalogue, name, language, channel_template_id, category, status, parameter_format, components, parameters, created_at, updated_at)
          SELECT s.id, s.catalogue, s.name, s.language, s.channel_template_id, s.category, s.status, s.parameter_format, s.components, s.parameters, ${at}, ${at}
            FROM jsonb_to_recordset(${JSON.stringify(templates)}::jsonb)
                 AS s(id uuid, catalogue text, name text, language text, channel_template_id text, category text, status text, parameter_format text, components jsonb, parameters jsonb)
          ON CONFLICT (catalogue, name, language) DO UPDATE
             SET channel_template_id = EXCLUDED.channel_template_id, category = EXCLUDED.category, status = EXCLUDED.status,
                 parameter_format = EXCLUDED.parameter_format, components = EXCLUDED.components, parameters = EXCLUDED.parameters,
                 updated_at = EXCLUDED.updated_at
           WHERE (templates.channel_template_id, templates.category, templates.status, templates.parameter_format, templates.components, templates.parameters)
                 IS DISTINCT FROM
                 (EXCLUDED.channel_template_id, EXCLUDED.category, EXCLUDED.status, EXCLUDED.parameter_format, EXCLUDED.components, EXCLUDED.parameters)`,
    );
  }

  /** Marks DELETED the templates of the catalogue that are not among `kept` (names and languages); answers how many. */
  markDeletedExcept(db: Db, catalogue: string, kept: { name: string; language: string }[], at: Date): Promise<number> {
    return execute(
      db,
      sql`UPDATE templates t SET status = ${DELETED_STATUS}, updated_at = ${at}
           WHERE t.catalogue = ${catalogue} AND t.status <> ${DELETED_STATUS}
             AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset(${JSON.stringify(kept)}::jsonb) AS k(name text, language text)
                              WHERE k.name = t.name AND k.language = t.language)`,
    );
  }

  /** Sets the status or category of the catalogue's template the channel named (by its id or by its name and language); answers how many rows changed. */
  setField(db: Db, catalogue: string, template: TemplateReference, field: 'status' | 'category', value: string, at: Date): Promise<number> {
    const column = sql.raw(field);
    const which: Sql[] = [];
    if (template.channelTemplateId) which.push(sql`channel_template_id = ${template.channelTemplateId}`);
    if (template.name && template.language) which.push(sql`(name = ${template.name} AND language = ${template.language})`);
    if (which.length === 0) return Promise.resolve(0);
    return execute(
      db,
      sql`UPDATE templates SET ${column} = ${value}, updated_at = ${at} WHERE catalogue = ${catalogue} AND (${sql.join(which, ' OR ')}) AND ${column} <> ${value}`,
    );
  }

  // --- The sync, as recorded work

  /** The catalogue's sync row, created due now if missing, else made due now (a start, a new inbox, or a webhook asking for a sync). */
  async makeSyncDue(db: Db, catalogue: string): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO template_syncs (id, next_attempt_at) VALUES (${catalogue}, now())
          ON CONFLICT (id) DO UPDATE SET next_attempt_at = LEAST(template_syncs.next_attempt_at, now())`,
    );
  }

  /**
   * A sync started outside the job (POST /templates/sync, a send's first sync) claims the row as an
   * attempt of its own, so a job attempt reading at the same time does not store an older read
   * after it (holdsLatestClaim); answers its attempt. The row is made, due, if missing.
   */
  async claimOutsideJob(db: Db, catalogue: string): Promise<number> {
    const [row] = await query<{ attempts: number }>(
      db,
      sql`INSERT INTO template_syncs (id, attempts, next_attempt_at) VALUES (${catalogue}, 1, now())
          ON CONFLICT (id) DO UPDATE SET attempts = template_syncs.attempts + 1 RETURNING attempts`,
    );
    return row.attempts;
  }

  /** In the sync's transaction: whether no later attempt claimed the catalogue's row since `attempt` (the row held until commit). */
  async holdsLatestClaim(db: Db, catalogue: string, attempt: number): Promise<boolean> {
    const row = await queryOne<{ attempts: number }>(db, sql`SELECT attempts FROM template_syncs WHERE id = ${catalogue} FOR UPDATE`);
    return row?.attempts === attempt;
  }

  findSync(db: Db, catalogue: string): Promise<TemplateSyncRow | null> {
    return queryOne(db, sql`SELECT ${SYNC_COLUMNS} FROM template_syncs WHERE id = ${catalogue}`);
  }

  /** A sync succeeded: recorded whoever ran it (attempt null: outside the job); the next one is scheduled only by the attempt still holding the row. */
  async recordSynced(db: Db, catalogue: string, attempt: number | null, nextAt: Date | null): Promise<void> {
    await execute(
      db,
      attempt === null
        ? // A sync asked for outside the job, of a catalogue without a row yet: made due, so the periodic sync takes it from here.
          sql`INSERT INTO template_syncs (id, synced_at, next_attempt_at) VALUES (${catalogue}, now(), now())
              ON CONFLICT (id) DO UPDATE SET synced_at = now(), failures = 0, error = NULL`
        : sql`UPDATE template_syncs SET synced_at = now(), failures = 0, error = NULL, next_attempt_at = ${nextAt}, claimed_by = NULL, updated_at = now()
               WHERE id = ${catalogue} AND attempts = ${attempt}`,
    );
  }

  /** The attempt failed: the next one is due at `nextAt`. */
  async recordSyncFailed(db: Db, catalogue: string, attempt: number, error: string, nextAt: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE template_syncs SET failures = failures + 1, error = ${error}, next_attempt_at = ${nextAt}, claimed_by = NULL, updated_at = now()
           WHERE id = ${catalogue} AND attempts = ${attempt}`,
    );
  }

  /** No active inbox reads the catalogue any more: its sync waits, without a due time, for one that does (makeSyncDue). */
  async parkSync(db: Db, catalogue: string, attempt: number): Promise<void> {
    await execute(
      db,
      sql`UPDATE template_syncs SET next_attempt_at = NULL, claimed_by = NULL, updated_at = now() WHERE id = ${catalogue} AND attempts = ${attempt}`,
    );
  }
}

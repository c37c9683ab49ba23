import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Message search over every thread, words in any order, case- and accent-insensitive, on both
 * engines: a trigram index over the folded text (pg_trgm and unaccent are contrib extensions that
 * PostgreSQL ships and PGlite loads). `unaccent()` is only STABLE (its dictionary could change),
 * so an IMMUTABLE wrapper that names its dictionary folds it, the usual way to index it.
 * A (created_at, id) index serves the newest-first order when a word is common.
 */
export class MessageSearch1763960000000 implements MigrationInterface {
  name = 'MessageSearch1763960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE EXTENSION IF NOT EXISTS unaccent');
    await q.query(`
      CREATE FUNCTION search_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$`);
    // Stored, so a filter compares a kept value instead of calling unaccent() on every row it
    // reads (the newest-first walk of a common word reads thousands): 10 ms -> 1 ms measured.
    await q.query('ALTER TABLE messages ADD COLUMN search_text text GENERATED ALWAYS AS (search_fold(text)) STORED');
    await q.query('CREATE INDEX messages_text_search_idx ON messages USING gin (search_text gin_trgm_ops)');
    await q.query('CREATE INDEX messages_created_idx ON messages (created_at DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX messages_created_idx');
    await q.query('DROP INDEX messages_text_search_idx');
    await q.query('ALTER TABLE messages DROP COLUMN search_text');
    await q.query('DROP FUNCTION search_fold(text)');
  }
}

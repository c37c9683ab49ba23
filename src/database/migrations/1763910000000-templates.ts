import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The template catalogue of the business account, one row per name and language, as the channel
 * defines it (`components`) with what a send must fill (`parameters`, derived at each sync); and
 * the one row that records its sync as recorded work (`attempts`, `next_attempt_at`,
 * `claimed_by`), so replicas share one sync per interval and a webhook's request for a sync is
 * committed with the change that asked for it.
 */
export class Templates1763910000000 implements MigrationInterface {
  name = 'Templates1763910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE templates (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        language text NOT NULL,
        channel_template_id text,
        category text NOT NULL,
        status text NOT NULL,
        parameter_format text NOT NULL,
        components jsonb NOT NULL,
        parameters jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX templates_name_language_idx ON templates (name, language)');
    await q.query('CREATE INDEX templates_channel_id_idx ON templates (channel_template_id)');
    await q.query('CREATE INDEX templates_updated_idx ON templates (updated_at DESC, id DESC)');
    await q.query('CREATE INDEX templates_status_updated_idx ON templates (status, updated_at DESC, id DESC)');
    await q.query('CREATE INDEX templates_language_updated_idx ON templates (language, updated_at DESC, id DESC)');
    await q.query('CREATE INDEX templates_name_search_idx ON templates USING gin (name gin_trgm_ops)');
    await q.query(`
      CREATE TABLE template_syncs (
        id text PRIMARY KEY,
        attempts integer NOT NULL DEFAULT 0,
        failures integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        claimed_by uuid,
        synced_at timestamptz(3),
        error text
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE template_syncs');
    await q.query('DROP TABLE templates');
  }
}

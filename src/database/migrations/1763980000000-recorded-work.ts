import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One engine of recorded work (src/recorded-work): every table of it has `id`, `attempts`,
 * `next_attempt_at`, `claimed_by` and `updated_at`, which the engine's statements set. The
 * catalogue's sync row was the one without `updated_at`.
 */
export class RecordedWork1763980000000 implements MigrationInterface {
  name = 'RecordedWork1763980000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE template_syncs ADD COLUMN updated_at timestamptz(3) NOT NULL DEFAULT now()');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE template_syncs DROP COLUMN updated_at');
  }
}

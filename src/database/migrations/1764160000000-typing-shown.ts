import { MigrationInterface, QueryRunner } from 'typeorm';

/** When "typing…" was last shown to the customer of a conversation: shown again only 20 s later, whichever replica is asked. */
export class TypingShown1764160000000 implements MigrationInterface {
  name = 'TypingShown1764160000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations ADD COLUMN typing_shown_at timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations DROP COLUMN typing_shown_at');
  }
}

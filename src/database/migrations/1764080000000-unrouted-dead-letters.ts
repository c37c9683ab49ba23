import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A channel webhook body for a phone number no inbox has is kept as a dead letter naming that
 * number, replayed by itself once an inbox has it (null: the body could not be stored for another
 * reason).
 */
export class UnroutedDeadLetters1764080000000 implements MigrationInterface {
  name = 'UnroutedDeadLetters1764080000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE inbound_dead_letters ADD COLUMN unknown_phone_number_id text');
    await q.query(
      'CREATE INDEX inbound_dead_letters_unrouted_idx ON inbound_dead_letters (unknown_phone_number_id) WHERE unknown_phone_number_id IS NOT NULL AND replayed_at IS NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX inbound_dead_letters_unrouted_idx');
    await q.query('ALTER TABLE inbound_dead_letters DROP COLUMN unknown_phone_number_id');
  }
}

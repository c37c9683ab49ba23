import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Channel webhook bodies that could not be stored for another reason than the database being
 * down: kept as the exact bytes received (bytea: whatever they hold), so the webhook can answer
 * 200 and the channel stops redelivering, and an admin can replay them once the cause is fixed.
 */
export class InboundDeadLetters1763870000000 implements MigrationInterface {
  name = 'InboundDeadLetters1763870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE inbound_dead_letters (
        id uuid PRIMARY KEY,
        received_at timestamptz(3) NOT NULL,
        raw_body bytea NOT NULL,
        signature text,
        error text NOT NULL,
        error_stack text,
        replayed_at timestamptz(3),
        replay_error text
      )`);
    await q.query('CREATE INDEX inbound_dead_letters_received_idx ON inbound_dead_letters (received_at DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE inbound_dead_letters');
  }
}

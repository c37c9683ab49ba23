import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sends become recorded work like webhook deliveries: a queued message says how many attempts it
 * had and when the next one is due, and the outbox relay hands due ones to the send job.
 */
export class SendAttempts1763860000000 implements MigrationInterface {
  name = 'SendAttempts1763860000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages ADD COLUMN attempts integer NOT NULL DEFAULT 0, ADD COLUMN next_attempt_at timestamptz(3)');
    await q.query(`UPDATE messages SET next_attempt_at = created_at WHERE status = 'queued'`);
    await q.query('DROP INDEX messages_unsent_idx');
    await q.query(`CREATE INDEX messages_send_due_idx ON messages (next_attempt_at) WHERE status = 'queued'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX messages_send_due_idx');
    await q.query(`CREATE INDEX messages_unsent_idx ON messages (created_at) WHERE status = 'queued'`);
    await q.query('ALTER TABLE messages DROP COLUMN attempts, DROP COLUMN next_attempt_at');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Unread state per agent at the list's cost. A conversation keeps its newest inbound message's
 * place in the thread's order, (created_at, id), the key a read marker holds: "has unread" is one
 * comparison with the caller's marker instead of a probe of the thread, so `unread=true` and the
 * counts of the inbox's tabs read conversations and markers only.
 */
export class ReadState1763970000000 implements MigrationInterface {
  name = 'ReadState1763970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations ADD COLUMN last_received_at timestamptz(3), ADD COLUMN last_received_id uuid');
    await q.query(`
      UPDATE conversations c SET (last_received_at, last_received_id) = (
        SELECT m.created_at, m.id FROM messages m WHERE m.conversation_id = c.id AND m.direction = 'inbound'
         ORDER BY m.created_at DESC, m.id DESC LIMIT 1)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations DROP COLUMN last_received_at, DROP COLUMN last_received_id');
  }
}

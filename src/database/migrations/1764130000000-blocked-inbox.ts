import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The channel keeps a block list per number: a customer blocked through one inbox is unblocked
 * through the same one, even if they wrote to another number since (the block holds only on the
 * first). Blocks made before are taken to be on the inbox the customer wrote to last, as they
 * were made then.
 */
export class BlockedInbox1764130000000 implements MigrationInterface {
  name = 'BlockedInbox1764130000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE contacts ADD COLUMN blocked_inbox_id uuid REFERENCES inboxes (id) ON DELETE SET NULL');
    await q.query(`
      UPDATE contacts ct SET blocked_inbox_id = (
        SELECT c.inbox_id FROM conversations c WHERE c.contact_id = ct.id
         ORDER BY c.last_inbound_at DESC NULLS LAST, c.created_at DESC LIMIT 1)
       WHERE ct.blocked_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE contacts DROP COLUMN blocked_inbox_id');
  }
}

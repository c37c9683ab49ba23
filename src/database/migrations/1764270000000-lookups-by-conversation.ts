import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rows looked up by their conversation where no index led there: the reports' holds (moved with
 * their conversation to another inbox by the conversation_facts trigger, and to the other
 * conversation by a merge; their only index by conversation is of the current hold) and the
 * notifications (moved by a merge, deleted by the cascade when a conversation is). Each of those
 * read the whole table: moving 100,000 conversations between inboxes read 130,000 holds for each,
 * more than 10 minutes where the bench measured 66 s before the holds existed.
 */
export class LookupsByConversation1764270000000 implements MigrationInterface {
  name = 'LookupsByConversation1764270000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX conversation_holds_conversation_idx ON conversation_holds (conversation_id)');
    await q.query('CREATE INDEX notifications_conversation_idx ON notifications (conversation_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX notifications_conversation_idx');
    await q.query('DROP INDEX conversation_holds_conversation_idx');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The list reads the preview's status from its message (one probe of messages_pkey a row) instead
 * of a copy on the conversation. The copy's trigger (ListRowColumns1764230000000) locked the
 * conversation after the message whose status changed, the reverse of the ingest's order (the
 * conversation, then its messages): a status of the previewed message racing a customer's message
 * in the same thread could deadlock, and PostgreSQL aborted one of them.
 *
 * `conversations.preview_status` stays, still set by the insert's trigger (which holds the
 * conversation already): during a rolling deploy the replicas of the previous release read and
 * write it after this migration ran. The release after this one drops it.
 */
export class PreviewStatusRead1764250000000 implements MigrationInterface {
  name = 'PreviewStatusRead1764250000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER conversation_list_on_message_status ON messages');
    await q.query('DROP FUNCTION conversation_list_on_message_status()');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION conversation_list_on_message_status() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversations SET preview_status = NEW.status WHERE id = NEW.conversation_id AND preview_id = NEW.id;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER conversation_list_on_message_status AFTER UPDATE OF status ON messages FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION conversation_list_on_message_status()`);
    await q.query('UPDATE conversations c SET preview_status = m.status FROM messages m WHERE m.id = c.preview_id');
  }
}

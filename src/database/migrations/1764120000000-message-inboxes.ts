import { MigrationInterface, QueryRunner } from 'typeorm';

/** The default inbox, which held every conversation before there were others (see src/common/default-inbox.ts). */
const DEFAULT_INBOX_ID = '00000000-0000-7000-8000-000000000001';

/**
 * Each message names its conversation's inbox, so what an agent may see is found by walking each
 * of their inboxes (newest first on `messages_inbox_created_idx`) instead of every message and
 * keeping theirs: a search for a common word reads a bounded number of rows per inbox, however
 * quiet the agent's inboxes are among the others. The conversation list gets the same walk per
 * inbox and status (`conversations_inbox_status_last_message_idx`).
 *
 * The column is kept by the database, not by whoever writes a message: a trigger sets it from the
 * conversation on insert and when a message moves to another conversation (a merge), and a
 * conversation moved to another inbox takes its messages along. It is added with the default
 * inbox as its default (kept in the catalogue: no table rewrite), then the few messages of other
 * inboxes' conversations are written.
 */
export class MessageInboxes1764120000000 implements MigrationInterface {
  name = 'MessageInboxes1764120000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN inbox_id uuid NOT NULL DEFAULT '${DEFAULT_INBOX_ID}'`);
    await q.query('ALTER TABLE messages ALTER COLUMN inbox_id DROP DEFAULT');
    await q.query(
      `UPDATE messages m SET inbox_id = c.inbox_id FROM conversations c
        WHERE c.id = m.conversation_id AND c.inbox_id <> $1`,
      [DEFAULT_INBOX_ID],
    );
    await q.query(`
      CREATE FUNCTION messages_inbox_of_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.inbox_id := (SELECT c.inbox_id FROM conversations c WHERE c.id = NEW.conversation_id);
        RETURN NEW;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER messages_inbox BEFORE INSERT OR UPDATE OF conversation_id ON messages
        FOR EACH ROW EXECUTE FUNCTION messages_inbox_of_conversation()`);
    await q.query(`
      CREATE FUNCTION conversations_inbox_to_messages() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE messages SET inbox_id = NEW.inbox_id WHERE conversation_id = NEW.id;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER conversations_inbox_to_messages AFTER UPDATE OF inbox_id ON conversations
        FOR EACH ROW WHEN (OLD.inbox_id IS DISTINCT FROM NEW.inbox_id) EXECUTE FUNCTION conversations_inbox_to_messages()`);
    await q.query('CREATE INDEX messages_inbox_created_idx ON messages (inbox_id, created_at DESC, id DESC)');
    await q.query(
      'CREATE INDEX conversations_inbox_status_last_message_idx ON conversations (inbox_id, status, last_message_at DESC, id DESC)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX conversations_inbox_status_last_message_idx');
    await q.query('DROP TRIGGER conversations_inbox_to_messages ON conversations');
    await q.query('DROP FUNCTION conversations_inbox_to_messages()');
    await q.query('DROP TRIGGER messages_inbox ON messages');
    await q.query('DROP FUNCTION messages_inbox_of_conversation()');
    await q.query('ALTER TABLE messages DROP COLUMN inbox_id');
  }
}

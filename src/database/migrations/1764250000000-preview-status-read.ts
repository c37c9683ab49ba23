import { MigrationInterface, QueryRunner } from 'typeorm';

/** A message `n` of the statement newer than the conversation's preview, in the thread's order (created_at, then id). */
const NEWER = `n.id IS NOT NULL AND (c.preview_id IS NULL OR (n.created_at, n.id) > (c.preview_created_at, c.preview_id))`;

/**
 * The list reads the preview's status from its message (one probe of messages_pkey a row) instead
 * of a copy on the conversation. The copy's trigger (ListRowColumns1764230000000) locked the
 * conversation after the message whose status changed, the reverse of the ingest's order (the
 * conversation, then its messages): a status of the previewed message racing a customer's message
 * in the same thread could deadlock, and PostgreSQL aborted one of them.
 */
export class PreviewStatusRead1764250000000 implements MigrationInterface {
  name = 'PreviewStatusRead1764250000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER conversation_list_on_message_status ON messages');
    await q.query('DROP FUNCTION conversation_list_on_message_status()');
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_list_on_messages_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversations c
           SET inbound_count = c.inbound_count + k.inbound,
               preview_id = CASE WHEN ${NEWER} THEN n.id ELSE c.preview_id END,
               preview_direction = CASE WHEN ${NEWER} THEN n.direction ELSE c.preview_direction END,
               preview_type = CASE WHEN ${NEWER} THEN n.type ELSE c.preview_type END,
               preview_text = CASE WHEN ${NEWER} THEN n.text ELSE c.preview_text END,
               preview_created_at = CASE WHEN ${NEWER} THEN n.created_at ELSE c.preview_created_at END
          FROM (SELECT conversation_id, count(*) FILTER (WHERE direction = 'inbound')::int AS inbound FROM added GROUP BY conversation_id) k
          LEFT JOIN (SELECT DISTINCT ON (conversation_id) conversation_id, id, direction, type, text, created_at FROM added
                      WHERE direction <> 'internal' ORDER BY conversation_id, created_at DESC, id DESC) n ON n.conversation_id = k.conversation_id
         WHERE c.id = k.conversation_id AND (k.inbound > 0 OR ${NEWER});
        RETURN NULL;
      END
      $$`);
    await q.query('ALTER TABLE conversations DROP COLUMN preview_status');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations ADD COLUMN preview_status text');
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_list_on_messages_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversations c
           SET inbound_count = c.inbound_count + k.inbound,
               preview_id = CASE WHEN ${NEWER} THEN n.id ELSE c.preview_id END,
               preview_direction = CASE WHEN ${NEWER} THEN n.direction ELSE c.preview_direction END,
               preview_type = CASE WHEN ${NEWER} THEN n.type ELSE c.preview_type END,
               preview_text = CASE WHEN ${NEWER} THEN n.text ELSE c.preview_text END,
               preview_status = CASE WHEN ${NEWER} THEN n.status ELSE c.preview_status END,
               preview_created_at = CASE WHEN ${NEWER} THEN n.created_at ELSE c.preview_created_at END
          FROM (SELECT conversation_id, count(*) FILTER (WHERE direction = 'inbound')::int AS inbound FROM added GROUP BY conversation_id) k
          LEFT JOIN (SELECT DISTINCT ON (conversation_id) conversation_id, id, direction, type, text, status, created_at FROM added
                      WHERE direction <> 'internal' ORDER BY conversation_id, created_at DESC, id DESC) n ON n.conversation_id = k.conversation_id
         WHERE c.id = k.conversation_id AND (k.inbound > 0 OR ${NEWER});
        RETURN NULL;
      END
      $$`);
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

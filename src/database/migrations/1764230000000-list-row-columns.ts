import { MigrationInterface, QueryRunner } from 'typeorm';

/** The preview's columns, as `messages` names them; `conversations` keeps each as `preview_<name>`. */
const PREVIEW = ['id', 'direction', 'type', 'text', 'status', 'created_at'];

/**
 * What a row of the conversation list shows, kept on the conversation so the list reads it instead
 * of computing it for every row of every page (issue 28):
 *
 * - `preview_*`: the newest message of the exchange with the customer (notes are the team's),
 *   which the list probed `messages` for;
 * - `inbound_count`: how many messages the customer has written in the thread, and
 *   `conversation_reads.inbound_read`: how many of them the reader had when they last read it,
 *   so an unread count is a subtraction instead of a count of the messages after the marker;
 * - `label_names`: the labels' names, sorted, which the list joined `labels` for.
 *
 * Triggers keep them, in the transaction of the change, so no path that writes a message, changes
 * its status, labels a conversation or renames a label can forget them. The insert's trigger is per
 * statement: a statement inserting many messages (a campaign, the bench's seed) updates each
 * conversation once. Reading a conversation sets `inbound_read` (ReadRepository.advanceMarker); a
 * merge moves messages between threads and recounts (ConversationRepository.absorb).
 */
export class ListRowColumns1764230000000 implements MigrationInterface {
  name = 'ListRowColumns1764230000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE conversations
        ADD COLUMN preview_id uuid, ADD COLUMN preview_direction text, ADD COLUMN preview_type text, ADD COLUMN preview_text text,
        ADD COLUMN preview_status text, ADD COLUMN preview_created_at timestamptz,
        ADD COLUMN inbound_count integer NOT NULL DEFAULT 0,
        ADD COLUMN label_names text[] NOT NULL DEFAULT '{}'`);
    await q.query('ALTER TABLE conversation_reads ADD COLUMN inbound_read integer NOT NULL DEFAULT 0');

    // Newer than the preview: in the thread's order (created_at, then id).
    const newer = `n.id IS NOT NULL AND (c.preview_id IS NULL OR (n.created_at, n.id) > (c.preview_created_at, c.preview_id))`;
    await q.query(`
      CREATE FUNCTION conversation_list_on_messages_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversations c
           SET inbound_count = c.inbound_count + k.inbound,
               ${PREVIEW.map((column) => `preview_${column} = CASE WHEN ${newer} THEN n.${column} ELSE c.preview_${column} END`).join(',\n               ')}
          FROM (SELECT conversation_id, count(*) FILTER (WHERE direction = 'inbound')::int AS inbound FROM added GROUP BY conversation_id) k
          LEFT JOIN (SELECT DISTINCT ON (conversation_id) conversation_id, ${PREVIEW.join(', ')} FROM added
                      WHERE direction <> 'internal' ORDER BY conversation_id, created_at DESC, id DESC) n ON n.conversation_id = k.conversation_id
         WHERE c.id = k.conversation_id AND (k.inbound > 0 OR ${newer});
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER conversation_list_on_messages_added AFTER INSERT ON messages REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION conversation_list_on_messages_added()`);

    // A status is shown only for the preview: other messages' changes read one row and write none.
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

    // Labels: the names of the conversations whose links changed, or whose label was renamed.
    await q.query(`
      CREATE FUNCTION conversation_label_names(conversation uuid) RETURNS text[] LANGUAGE sql STABLE AS $$
        SELECT coalesce(array_agg(l.name ORDER BY l.name), '{}') FROM conversation_labels cl JOIN labels l ON l.id = cl.label_id
         WHERE cl.conversation_id = conversation
      $$`);
    await q.query(`
      CREATE FUNCTION conversation_list_on_links() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversations c SET label_names = conversation_label_names(c.id)
         WHERE c.id IN (SELECT conversation_id FROM changed);
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER conversation_list_on_links_added AFTER INSERT ON conversation_labels REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION conversation_list_on_links()`);
    await q.query(`
      CREATE TRIGGER conversation_list_on_links_removed AFTER DELETE ON conversation_labels REFERENCING OLD TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION conversation_list_on_links()`);
    await q.query(`
      CREATE FUNCTION conversation_list_on_label_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversations c SET label_names = conversation_label_names(c.id)
         WHERE c.id IN (SELECT cl.conversation_id FROM conversation_labels cl WHERE cl.label_id = NEW.id);
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER conversation_list_on_label_renamed AFTER UPDATE OF name ON labels FOR EACH ROW
        WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION conversation_list_on_label_renamed()`);

    // The conversations so far, and each reader's count at their marker.
    await q.query(`
      UPDATE conversations c
         SET (${PREVIEW.map((column) => `preview_${column}`).join(', ')}) = (
               SELECT ${PREVIEW.map((column) => `m.${column}`).join(', ')} FROM messages m
                WHERE m.conversation_id = c.id AND m.direction <> 'internal' ORDER BY m.created_at DESC, m.id DESC LIMIT 1),
             inbound_count = (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.direction = 'inbound'),
             label_names = conversation_label_names(c.id)`);
    await q.query(`
      UPDATE conversation_reads r
         SET inbound_read = (SELECT count(*) FROM messages m WHERE m.conversation_id = r.conversation_id AND m.direction = 'inbound'
                                AND (m.created_at, m.id) <= (r.last_read_at, r.last_read_message_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER conversation_list_on_label_renamed ON labels');
    await q.query('DROP FUNCTION conversation_list_on_label_renamed()');
    await q.query('DROP TRIGGER conversation_list_on_links_removed ON conversation_labels');
    await q.query('DROP TRIGGER conversation_list_on_links_added ON conversation_labels');
    await q.query('DROP FUNCTION conversation_list_on_links()');
    await q.query('DROP FUNCTION conversation_label_names(uuid)');
    await q.query('DROP TRIGGER conversation_list_on_message_status ON messages');
    await q.query('DROP FUNCTION conversation_list_on_message_status()');
    await q.query('DROP TRIGGER conversation_list_on_messages_added ON messages');
    await q.query('DROP FUNCTION conversation_list_on_messages_added()');
    await q.query('ALTER TABLE conversation_reads DROP COLUMN inbound_read');
    await q.query(`
      ALTER TABLE conversations
        DROP COLUMN preview_id, DROP COLUMN preview_direction, DROP COLUMN preview_type, DROP COLUMN preview_text,
        DROP COLUMN preview_status, DROP COLUMN preview_created_at, DROP COLUMN inbound_count, DROP COLUMN label_names`);
  }
}

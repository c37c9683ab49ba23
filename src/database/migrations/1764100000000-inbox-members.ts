import { MigrationInterface, QueryRunner } from 'typeorm';

/** The default inbox, which held every conversation before there were others (see src/common/default-inbox.ts). */
const DEFAULT_INBOX_ID = '00000000-0000-7000-8000-000000000001';

/**
 * Who works which inbox, and what an agent may see follows from it.
 *
 * `inbox_members`: every user made before inboxes existed belongs to the default inbox, so an
 * install with one number behaves as before (admins see every inbox whatever their memberships).
 *
 * Events name the inbox they are about (`inbox_id`, null for those about no conversation), so
 * the stream hands an agent only their inboxes' events, live and replayed.
 *
 * The counts ledger gains the inbox dimension, so an agent's tabs count their inboxes alone and
 * a tab can be counted per inbox: the triggers are written again to write the conversation's
 * inbox, and the balance is counted again from the rows, by inbox, with the tables held still.
 */
export class InboxMembers1764100000000 implements MigrationInterface {
  name = 'InboxMembers1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE inbox_members (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        inbox_id uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
        PRIMARY KEY (user_id, inbox_id)
      )`);
    await q.query('CREATE INDEX inbox_members_inbox_idx ON inbox_members (inbox_id, user_id)');
    await q.query('INSERT INTO inbox_members (user_id, inbox_id) SELECT id, $1 FROM users', [DEFAULT_INBOX_ID]);

    await q.query('ALTER TABLE events ADD COLUMN inbox_id uuid');
    // The events still kept that are about a conversation are about one of the default inbox's
    // (the only one whose conversations had events before): agents of other inboxes never replay them.
    await q.query(`UPDATE events SET inbox_id = $1 WHERE type LIKE 'conversation.%' OR type LIKE 'message.%' OR type = 'note.created'`, [
      DEFAULT_INBOX_ID,
    ]);

    await q.query(`ALTER TABLE conversation_counters ADD COLUMN inbox_id uuid`);
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_counters_on_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status AND OLD.assigned_to IS NOT DISTINCT FROM NEW.assigned_to
           AND OLD.last_received_id IS NOT DISTINCT FROM NEW.last_received_id AND OLD.inbox_id = NEW.inbox_id THEN
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
            SELECT k.counter, k.user_id, OLD.inbox_id, -1
              FROM conversation_counted(OLD.status, OLD.assigned_to, OLD.last_received_id IS NOT NULL) k;
          IF OLD.status = 'open' AND OLD.last_received_id IS NOT NULL THEN
            INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
              SELECT 'caught_up', r.user_id, OLD.inbox_id, -1 FROM conversation_reads r
               WHERE r.conversation_id = OLD.id AND (r.last_read_at, r.last_read_message_id) >= (OLD.last_received_at, OLD.last_received_id);
          END IF;
        END IF;
        IF TG_OP = 'DELETE' THEN
          RETURN OLD;
        END IF;
        INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
          SELECT k.counter, k.user_id, NEW.inbox_id, 1
            FROM conversation_counted(NEW.status, NEW.assigned_to, NEW.last_received_id IS NOT NULL) k;
        IF TG_OP = 'UPDATE' AND NEW.status = 'open' AND NEW.last_received_id IS NOT NULL THEN
          INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
            SELECT 'caught_up', r.user_id, NEW.inbox_id, 1 FROM conversation_reads r
             WHERE r.conversation_id = NEW.id AND (r.last_read_at, r.last_read_message_id) >= (NEW.last_received_at, NEW.last_received_id);
        END IF;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_counters_on_marker() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        c record;
        delta integer := 0;
      BEGIN
        SELECT status, last_received_at, last_received_id, inbox_id INTO c FROM conversations
         WHERE id = COALESCE(NEW.conversation_id, OLD.conversation_id) FOR SHARE;
        IF NOT FOUND OR c.status <> 'open' OR c.last_received_id IS NULL THEN
          RETURN NULL;
        END IF;
        IF TG_OP <> 'DELETE' AND (NEW.last_read_at, NEW.last_read_message_id) >= (c.last_received_at, c.last_received_id) THEN
          delta := delta + 1;
        END IF;
        IF TG_OP <> 'INSERT' AND (OLD.last_read_at, OLD.last_read_message_id) >= (c.last_received_at, c.last_received_id) THEN
          delta := delta - 1;
        END IF;
        IF delta <> 0 THEN
          INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
            VALUES ('caught_up', COALESCE(NEW.user_id, OLD.user_id), c.inbox_id, delta);
        END IF;
        RETURN NULL;
      END
      $$`);
    // The ledger's balance again, now by inbox, from what the rows hold (whatever inbox each
    // conversation is in by now), in this transaction: the triggers above write every later change.
    await q.query('LOCK TABLE conversations, conversation_reads IN SHARE MODE');
    await q.query('DELETE FROM conversation_counters');
    await q.query(`
      INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
      SELECT k.counter, k.user_id, c.inbox_id, count(*) FROM conversations c,
             LATERAL conversation_counted(c.status, c.assigned_to, c.last_received_id IS NOT NULL) k
       GROUP BY k.counter, k.user_id, c.inbox_id`);
    await q.query(`
      INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
      SELECT 'caught_up', r.user_id, c.inbox_id, count(*) FROM conversation_reads r JOIN conversations c ON c.id = r.conversation_id
       WHERE c.status = 'open' AND c.last_received_id IS NOT NULL
         AND (r.last_read_at, r.last_read_message_id) >= (c.last_received_at, c.last_received_id)
       GROUP BY r.user_id, c.inbox_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The triggers' earlier bodies write no inbox: folded by inbox, the ledger sums the same.
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_counters_on_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status AND OLD.assigned_to IS NOT DISTINCT FROM NEW.assigned_to
           AND OLD.last_received_id IS NOT DISTINCT FROM NEW.last_received_id THEN
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO conversation_counters (counter, user_id, delta)
            SELECT k.counter, k.user_id, -1 FROM conversation_counted(OLD.status, OLD.assigned_to, OLD.last_received_id IS NOT NULL) k;
          IF OLD.status = 'open' AND OLD.last_received_id IS NOT NULL THEN
            INSERT INTO conversation_counters (counter, user_id, delta)
              SELECT 'caught_up', r.user_id, -1 FROM conversation_reads r
               WHERE r.conversation_id = OLD.id AND (r.last_read_at, r.last_read_message_id) >= (OLD.last_received_at, OLD.last_received_id);
          END IF;
        END IF;
        IF TG_OP = 'DELETE' THEN
          RETURN OLD;
        END IF;
        INSERT INTO conversation_counters (counter, user_id, delta)
          SELECT k.counter, k.user_id, 1 FROM conversation_counted(NEW.status, NEW.assigned_to, NEW.last_received_id IS NOT NULL) k;
        IF TG_OP = 'UPDATE' AND NEW.status = 'open' AND NEW.last_received_id IS NOT NULL THEN
          INSERT INTO conversation_counters (counter, user_id, delta)
            SELECT 'caught_up', r.user_id, 1 FROM conversation_reads r
             WHERE r.conversation_id = NEW.id AND (r.last_read_at, r.last_read_message_id) >= (NEW.last_received_at, NEW.last_received_id);
        END IF;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_counters_on_marker() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        c record;
        delta integer := 0;
      BEGIN
        SELECT status, last_received_at, last_received_id INTO c FROM conversations
         WHERE id = COALESCE(NEW.conversation_id, OLD.conversation_id) FOR SHARE;
        IF NOT FOUND OR c.status <> 'open' OR c.last_received_id IS NULL THEN
          RETURN NULL;
        END IF;
        IF TG_OP <> 'DELETE' AND (NEW.last_read_at, NEW.last_read_message_id) >= (c.last_received_at, c.last_received_id) THEN
          delta := delta + 1;
        END IF;
        IF TG_OP <> 'INSERT' AND (OLD.last_read_at, OLD.last_read_message_id) >= (c.last_received_at, c.last_received_id) THEN
          delta := delta - 1;
        END IF;
        IF delta <> 0 THEN
          INSERT INTO conversation_counters (counter, user_id, delta) VALUES ('caught_up', COALESCE(NEW.user_id, OLD.user_id), delta);
        END IF;
        RETURN NULL;
      END
      $$`);
    await q.query('ALTER TABLE conversation_counters DROP COLUMN inbox_id');
    await q.query('ALTER TABLE events DROP COLUMN inbox_id');
    await q.query('DROP TABLE inbox_members');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The counts' ledger (see the read-state and inbox-members migrations) without the rows that
 * cancel out: a customer's message in a conversation they wrote in before moves only the readers'
 * `caught_up`, not the conversation's counted set, which the trigger took off and added back (six
 * of about ten ledger rows per message under ingest, each folded and vacuumed every 5 s).
 */
export class CountersWithoutNoise1764240000000 implements MigrationInterface {
  name = 'CountersWithoutNoise1764240000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_counters_on_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        -- The counted set (status, assignee, whether the customer wrote, inbox) did not change:
        -- its -1 and +1 would cancel out.
        same_set boolean := TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status
          AND OLD.assigned_to IS NOT DISTINCT FROM NEW.assigned_to
          AND (OLD.last_received_id IS NULL) = (NEW.last_received_id IS NULL) AND OLD.inbox_id = NEW.inbox_id;
      BEGIN
        IF same_set AND OLD.last_received_id IS NOT DISTINCT FROM NEW.last_received_id THEN
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          IF NOT same_set THEN
            INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
              SELECT k.counter, k.user_id, OLD.inbox_id, -1
                FROM conversation_counted(OLD.status, OLD.assigned_to, OLD.last_received_id IS NOT NULL) k;
          END IF;
          IF OLD.status = 'open' AND OLD.last_received_id IS NOT NULL THEN
            INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
              SELECT 'caught_up', r.user_id, OLD.inbox_id, -1 FROM conversation_reads r
               WHERE r.conversation_id = OLD.id AND (r.last_read_at, r.last_read_message_id) >= (OLD.last_received_at, OLD.last_received_id);
          END IF;
        END IF;
        IF TG_OP = 'DELETE' THEN
          RETURN OLD;
        END IF;
        IF NOT same_set THEN
          INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
            SELECT k.counter, k.user_id, NEW.inbox_id, 1
              FROM conversation_counted(NEW.status, NEW.assigned_to, NEW.last_received_id IS NOT NULL) k;
        END IF;
        IF TG_OP = 'UPDATE' AND NEW.status = 'open' AND NEW.last_received_id IS NOT NULL THEN
          INSERT INTO conversation_counters (counter, user_id, inbox_id, delta)
            SELECT 'caught_up', r.user_id, NEW.inbox_id, 1 FROM conversation_reads r
             WHERE r.conversation_id = NEW.id AND (r.last_read_at, r.last_read_message_id) >= (NEW.last_received_at, NEW.last_received_id);
        END IF;
        RETURN NULL;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
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
  }
}

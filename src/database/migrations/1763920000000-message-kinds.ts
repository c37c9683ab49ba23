import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the channel carries both ways: replies (a message quoting another), the click-to-WhatsApp
 * referral and the pricing category on a message; reactions attached to the message they react
 * to, one per reactor, with the agents' reactions sent as recorded work; each user's read marker
 * per conversation, and the read receipts sent to the channel (once per message, as recorded
 * work); and the top-level errors the channel reports in a webhook change.
 */
export class MessageKinds1763920000000 implements MigrationInterface {
  name = 'MessageKinds1763920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE messages
        ADD COLUMN reply_to_id uuid REFERENCES messages (id) ON DELETE SET NULL,
        ADD COLUMN referral jsonb,
        ADD COLUMN pricing_category text`);
    // ON DELETE SET NULL on reply_to_id: a deleted conversation's messages find their quotes by this index.
    await q.query('CREATE INDEX messages_reply_to_idx ON messages (reply_to_id) WHERE reply_to_id IS NOT NULL');

    // One reaction per reactor (`customer`, or a user's uuid) and message; an empty emoji is a
    // removal kept as a tombstone, so a redelivered older reaction of the customer cannot come back.
    await q.query(`
      CREATE TABLE message_reactions (
        message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        reactor text NOT NULL,
        emoji text NOT NULL,
        channel_message_id text,
        channel_timestamp timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        PRIMARY KEY (message_id, reactor)
      )`);

    // An agent's reaction on its way to the channel: recorded work like a message send.
    await q.query(`
      CREATE TABLE reaction_sends (
        id uuid PRIMARY KEY,
        message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        emoji text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'sent', 'failed', 'superseded')),
        error text,
        channel_message_id text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        claimed_by uuid,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX reaction_sends_due_idx ON reaction_sends (next_attempt_at) WHERE status = 'queued'`);
    await q.query(`CREATE INDEX reaction_sends_queued_idx ON reaction_sends (message_id, user_id) WHERE status = 'queued'`);

    // Each user's read marker per conversation: the newest message read, as (created_at, id), the
    // keyset order of the thread, so "unread" is the inbound messages after it on
    // messages_conversation_created_idx.
    await q.query(`
      CREATE TABLE conversation_reads (
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        last_read_message_id uuid NOT NULL,
        last_read_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (conversation_id, user_id)
      )`);
    await q.query('CREATE INDEX conversation_reads_user_idx ON conversation_reads (user_id)');

    // A read receipt to the channel: one per inbound message, whoever reads it and on whichever replica.
    await q.query(`
      CREATE TABLE read_receipts (
        id uuid PRIMARY KEY,
        message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        channel_message_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
        error text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        claimed_by uuid,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX read_receipts_message_key ON read_receipts (message_id)');
    await q.query(`CREATE INDEX read_receipts_due_idx ON read_receipts (next_attempt_at) WHERE status = 'pending'`);

    // Errors the channel reports for a whole change (`value.errors`), not for one message.
    await q.query(`
      CREATE TABLE channel_errors (
        id uuid PRIMARY KEY,
        received_at timestamptz(3) NOT NULL,
        code integer,
        title text,
        details text,
        error jsonb NOT NULL
      )`);
    await q.query('CREATE INDEX channel_errors_received_idx ON channel_errors (received_at DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE channel_errors, read_receipts, conversation_reads, reaction_sends, message_reactions');
    await q.query('DROP INDEX messages_reply_to_idx');
    await q.query('ALTER TABLE messages DROP COLUMN reply_to_id, DROP COLUMN referral, DROP COLUMN pricing_category');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The inbox: contacts (the customers), one conversation per contact, its messages, per-user
 * notifications, and the event outbox. Every list is served by an index matching its filter
 * and keyset order; text search uses trigram indexes.
 */
export class Inbox1763840000000 implements MigrationInterface {
  name = 'Inbox1763840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');

    await q.query(`
      CREATE TABLE contacts (
        id uuid PRIMARY KEY,
        phone text NOT NULL,
        name text,
        email text,
        tags text[] NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX contacts_phone_key ON contacts (phone)');
    await q.query('CREATE INDEX contacts_created_at_id_idx ON contacts (created_at DESC, id DESC)');
    await q.query('CREATE INDEX contacts_tags_idx ON contacts USING gin (tags)');
    await q.query(
      `CREATE INDEX contacts_search_idx ON contacts USING gin ((coalesce(name, '') || ' ' || phone || ' ' || coalesce(email, '')) gin_trgm_ops)`,
    );

    await q.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY,
        contact_id uuid NOT NULL REFERENCES contacts (id) ON DELETE RESTRICT,
        status text NOT NULL CHECK (status IN ('open', 'closed')),
        assigned_to uuid REFERENCES users (id) ON DELETE SET NULL,
        last_message_at timestamptz(3) NOT NULL,
        last_inbound_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX conversations_contact_id_key ON conversations (contact_id)');
    await q.query('CREATE INDEX conversations_last_message_idx ON conversations (last_message_at DESC, id DESC)');
    await q.query('CREATE INDEX conversations_status_last_message_idx ON conversations (status, last_message_at DESC, id DESC)');
    await q.query('CREATE INDEX conversations_assignee_last_message_idx ON conversations (assigned_to, last_message_at DESC, id DESC)');

    await q.query(`
      CREATE TABLE messages (
        id uuid PRIMARY KEY,
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        type text NOT NULL,
        text text,
        content jsonb,
        status text NOT NULL,
        error text,
        channel_message_id text,
        sent_by uuid REFERENCES users (id) ON DELETE SET NULL,
        idempotency_key text,
        request_hash text,
        channel_timestamp timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(
      'CREATE UNIQUE INDEX messages_channel_message_id_key ON messages (channel_message_id) WHERE channel_message_id IS NOT NULL',
    );
    await q.query('CREATE UNIQUE INDEX messages_idempotency_key ON messages (sent_by, idempotency_key) WHERE idempotency_key IS NOT NULL');
    await q.query('CREATE INDEX messages_conversation_created_idx ON messages (conversation_id, created_at DESC, id DESC)');
    await q.query(`CREATE INDEX messages_unsent_idx ON messages (created_at) WHERE status = 'queued'`);

    await q.query(`
      CREATE TABLE notifications (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        type text NOT NULL,
        conversation_id uuid REFERENCES conversations (id) ON DELETE CASCADE,
        text text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        read_at timestamptz(3)
      )`);
    await q.query('CREATE INDEX notifications_user_created_idx ON notifications (user_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX notifications_user_unread_idx ON notifications (user_id, created_at DESC, id DESC) WHERE read_at IS NULL');

    await q.query(`
      CREATE TABLE events (
        id uuid PRIMARY KEY,
        type text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL,
        relayed_at timestamptz(3)
      )`);
    await q.query('CREATE INDEX events_unrelayed_idx ON events (created_at, id) WHERE relayed_at IS NULL');
    await q.query('CREATE INDEX events_created_idx ON events (created_at, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE events, notifications, messages, conversations, contacts');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** The id of the default inbox this migration makes: the install's one number until now (see src/common/default-inbox.ts). */
const DEFAULT_INBOX_ID = '00000000-0000-7000-8000-000000000001';

/**
 * Inboxes: one WhatsApp number each. The default inbox is made here, described at start-up by the
 * MESSAGING_* settings, and every existing conversation belongs to it. The column is added with
 * the default inbox as its default, which PostgreSQL keeps in the catalogue instead of rewriting
 * the table, then the default is dropped: existing rows keep the value, new ones must name their
 * inbox. One conversation per customer becomes one per customer and inbox.
 */
export class Inboxes1764070000000 implements MigrationInterface {
  name = 'Inboxes1764070000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE inboxes (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        phone_number_id text,
        display_phone_number text,
        business_account_id text,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        access_token text,
        app_secret text,
        is_default boolean NOT NULL DEFAULT false,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX inboxes_phone_number_id_key ON inboxes (phone_number_id)');
    await q.query('CREATE UNIQUE INDEX inboxes_default_key ON inboxes (is_default) WHERE is_default');
    await q.query(`INSERT INTO inboxes (id, name, is_default, created_at, updated_at) VALUES ($1, 'Default', true, now(), now())`, [
      DEFAULT_INBOX_ID,
    ]);
    await q.query(`ALTER TABLE conversations ADD COLUMN inbox_id uuid NOT NULL DEFAULT '${DEFAULT_INBOX_ID}' REFERENCES inboxes (id)`);
    await q.query('ALTER TABLE conversations ALTER COLUMN inbox_id DROP DEFAULT');
    await q.query('CREATE UNIQUE INDEX conversations_contact_inbox_key ON conversations (contact_id, inbox_id)');
    await q.query('DROP INDEX conversations_contact_id_key');
    // The list of one inbox, newest activity first, as the list of all is served by conversations_last_message_idx.
    await q.query('CREATE INDEX conversations_inbox_last_message_idx ON conversations (inbox_id, last_message_at DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    // Fails while a customer has conversations in two inboxes: which to keep is an operator's choice.
    await q.query('CREATE UNIQUE INDEX conversations_contact_id_key ON conversations (contact_id)');
    await q.query('DROP INDEX conversations_inbox_last_message_idx');
    await q.query('DROP INDEX conversations_contact_inbox_key');
    await q.query('ALTER TABLE conversations DROP COLUMN inbox_id');
    await q.query('DROP TABLE inboxes');
  }
}

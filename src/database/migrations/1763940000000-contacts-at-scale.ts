import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contacts at scale and canned responses: a contact's custom `attributes` (a JSON object), and the
 * team's canned responses with their unique shortcut. Canned responses are searched on folded
 * copies of the shortcut and the text (lower case, accents removed, written by the repository),
 * so the search is case- and accent-insensitive on both engines with plain indexes: a btree with
 * text_pattern_ops for the shortcut prefix (it also makes the folded shortcut unique), a trigram
 * index for the words of the text.
 */
export class ContactsAtScale1763940000000 implements MigrationInterface {
  name = 'ContactsAtScale1763940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE contacts ADD COLUMN attributes jsonb NOT NULL DEFAULT '{}'`);

    await q.query(`
      CREATE TABLE canned_responses (
        id uuid PRIMARY KEY,
        shortcut text NOT NULL,
        text text NOT NULL,
        folded_shortcut text NOT NULL,
        folded_text text NOT NULL,
        created_by uuid REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX canned_responses_shortcut_key ON canned_responses (folded_shortcut text_pattern_ops)');
    await q.query('CREATE INDEX canned_responses_created_at_id_idx ON canned_responses (created_at DESC, id DESC)');
    await q.query('CREATE INDEX canned_responses_text_search_idx ON canned_responses USING gin (folded_text gin_trgm_ops)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE canned_responses');
    await q.query('ALTER TABLE contacts DROP COLUMN attributes');
  }
}

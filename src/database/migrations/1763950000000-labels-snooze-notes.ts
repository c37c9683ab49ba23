import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agents' workspace: a conversation can be snoozed until a time (`snoozed_until`, set exactly
 * while the status is `snoozed`, and an index for the wake-up's "which are due" question); labels
 * that admins manage and agents put on conversations (a join table, with an index for the list's
 * `label=` filter); private notes, which are messages of direction `internal` and can never be
 * queued for the channel.
 */
export class LabelsSnoozeNotes1763950000000 implements MigrationInterface {
  name = 'LabelsSnoozeNotes1763950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations DROP CONSTRAINT conversations_status_check');
    await q.query(`ALTER TABLE conversations ADD CONSTRAINT conversations_status_check CHECK (status IN ('open', 'snoozed', 'closed'))`);
    await q.query('ALTER TABLE conversations ADD COLUMN snoozed_until timestamptz(3)');
    await q.query(
      `ALTER TABLE conversations ADD CONSTRAINT conversations_snoozed_until_check CHECK ((status = 'snoozed') = (snoozed_until IS NOT NULL))`,
    );
    await q.query(`CREATE INDEX conversations_snoozed_until_idx ON conversations (snoozed_until) WHERE status = 'snoozed'`);

    await q.query(`
      CREATE TABLE labels (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        color text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX labels_name_key ON labels (lower(name))');
    await q.query('CREATE INDEX labels_created_at_id_idx ON labels (created_at, id)');

    await q.query(`
      CREATE TABLE conversation_labels (
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        label_id uuid NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
        PRIMARY KEY (conversation_id, label_id)
      )`);
    await q.query('CREATE INDEX conversation_labels_label_idx ON conversation_labels (label_id, conversation_id)');

    await q.query('ALTER TABLE messages DROP CONSTRAINT messages_direction_check');
    await q.query(`ALTER TABLE messages ADD CONSTRAINT messages_direction_check CHECK (direction IN ('inbound', 'outbound', 'internal'))`);
    await q.query(
      `ALTER TABLE messages ADD CONSTRAINT messages_internal_never_sent_check
         CHECK (direction <> 'internal' OR (status = 'sent' AND next_attempt_at IS NULL AND channel_message_id IS NULL))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM messages WHERE direction = 'internal'`);
    await q.query('ALTER TABLE messages DROP CONSTRAINT messages_internal_never_sent_check');
    await q.query('ALTER TABLE messages DROP CONSTRAINT messages_direction_check');
    await q.query(`ALTER TABLE messages ADD CONSTRAINT messages_direction_check CHECK (direction IN ('inbound', 'outbound'))`);
    await q.query('DROP TABLE conversation_labels, labels');
    await q.query(`UPDATE conversations SET status = 'open' WHERE status = 'snoozed'`);
    await q.query('DROP INDEX conversations_snoozed_until_idx');
    await q.query('ALTER TABLE conversations DROP CONSTRAINT conversations_snoozed_until_check');
    await q.query('ALTER TABLE conversations DROP COLUMN snoozed_until');
    await q.query('ALTER TABLE conversations DROP CONSTRAINT conversations_status_check');
    await q.query(`ALTER TABLE conversations ADD CONSTRAINT conversations_status_check CHECK (status IN ('open', 'closed'))`);
  }
}

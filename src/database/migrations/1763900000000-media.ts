import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Media: the bytes of images, audio, video, documents and stickers, kept in the media store and
 * described here. An inbound media is recorded work: `pending` until its download from the
 * channel succeeds (`ready`), fails for good (`failed`), or outlives the channel's copy
 * (`expired`); an upload is `ready` at once and remembers the channel's id once sent. A message
 * points at its media; one upload can be sent in many messages.
 */
export class Media1763900000000 implements MigrationInterface {
  name = 'Media1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE media (
        id uuid PRIMARY KEY,
        direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        kind text NOT NULL CHECK (kind IN ('image', 'audio', 'video', 'document', 'sticker')),
        status text NOT NULL CHECK (status IN ('pending', 'ready', 'failed', 'expired')),
        mime_type text NOT NULL,
        size bigint,
        filename text,
        sha256 text,
        storage_key text,
        channel_media_id text,
        channel_sha256 text,
        available_until timestamptz(3),
        channel_upload_id text,
        channel_uploaded_at timestamptz(3),
        error text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        claimed_by uuid,
        uploaded_by uuid REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX media_download_due_idx ON media (next_attempt_at) WHERE status = 'pending'`);
    await q.query('ALTER TABLE messages ADD COLUMN media_id uuid REFERENCES media (id) ON DELETE RESTRICT');
    await q.query('CREATE INDEX messages_media_idx ON messages (media_id) WHERE media_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX messages_media_idx');
    await q.query('ALTER TABLE messages DROP COLUMN media_id');
    await q.query('DROP TABLE media');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An upload is sent once a message took it (as its media, or as a template's header): the send's
 * transaction sets `sent_at`, so "unsent" is one column, not a search of every template message's
 * content for the upload's id (which scanned, and which any text naming the id could game).
 */
export class UploadReferences1764050000000 implements MigrationInterface {
  name = 'UploadReferences1764050000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE media ADD COLUMN sent_at timestamptz(3)');
    await q.query(`UPDATE media m SET sent_at = m.created_at
                    WHERE m.direction = 'outbound'
                      AND (EXISTS (SELECT 1 FROM messages WHERE messages.media_id = m.id)
                           OR EXISTS (SELECT 1 FROM messages WHERE messages.type = 'template' AND messages.created_at >= m.created_at
                                        AND messages.content::text LIKE '%med_' || replace(m.id::text, '-', '') || '%'))`);
    await q.query('DROP INDEX media_uploads_idx');
    await q.query('DROP INDEX media_uploads_by_age_idx');
    await q.query(
      `CREATE INDEX media_unsent_uploads_idx ON media (uploaded_by, created_at) WHERE direction = 'outbound' AND sent_at IS NULL`,
    );
    await q.query(`CREATE INDEX media_unsent_uploads_by_age_idx ON media (created_at) WHERE direction = 'outbound' AND sent_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX media_unsent_uploads_by_age_idx');
    await q.query('DROP INDEX media_unsent_uploads_idx');
    await q.query(`CREATE INDEX media_uploads_idx ON media (uploaded_by, created_at) WHERE direction = 'outbound'`);
    await q.query(`CREATE INDEX media_uploads_by_age_idx ON media (created_at) WHERE direction = 'outbound'`);
    await q.query('ALTER TABLE media DROP COLUMN sent_at');
  }
}

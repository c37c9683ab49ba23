import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uploads no message was sent with are deleted after MEDIA_UPLOAD_TTL, and count against their
 * uploader's quota until then: both read the uploads by uploader and age.
 */
export class UploadRetention1764030000000 implements MigrationInterface {
  name = 'UploadRetention1764030000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX media_uploads_idx ON media (uploaded_by, created_at) WHERE direction = 'outbound'`);
    await q.query(`CREATE INDEX media_uploads_by_age_idx ON media (created_at) WHERE direction = 'outbound'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX media_uploads_by_age_idx');
    await q.query('DROP INDEX media_uploads_idx');
  }
}

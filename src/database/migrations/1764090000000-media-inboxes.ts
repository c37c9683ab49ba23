import { MigrationInterface, QueryRunner } from 'typeorm';

/** The default inbox, which held every conversation before there were others (see src/common/default-inbox.ts). */
const DEFAULT_INBOX_ID = '00000000-0000-7000-8000-000000000001';

/**
 * A media belongs to a number on the channel: a customer's (`inbox_id`) is downloaded with the
 * token of the inbox that received it and read by that inbox's members; an upload's channel id
 * (`channel_upload_inbox_id`) is valid for the number it was uploaded through. Every media until
 * now came or went through the default inbox: the columns are added with it as their default
 * (kept in the catalogue, no rewrite), which is then dropped; uploads belong to no inbox.
 */
export class MediaInboxes1764090000000 implements MigrationInterface {
  name = 'MediaInboxes1764090000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE media ADD COLUMN inbox_id uuid DEFAULT '${DEFAULT_INBOX_ID}' REFERENCES inboxes (id) ON DELETE SET NULL`);
    await q.query('ALTER TABLE media ALTER COLUMN inbox_id DROP DEFAULT');
    await q.query(`UPDATE media SET inbox_id = NULL WHERE direction = 'outbound'`);
    await q.query(
      `ALTER TABLE media ADD COLUMN channel_upload_inbox_id uuid DEFAULT '${DEFAULT_INBOX_ID}' REFERENCES inboxes (id) ON DELETE SET NULL`,
    );
    await q.query('ALTER TABLE media ALTER COLUMN channel_upload_inbox_id DROP DEFAULT');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE media DROP COLUMN channel_upload_inbox_id, DROP COLUMN inbox_id');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** The default inbox, which held every conversation before there were others (see src/common/default-inbox.ts). */
const DEFAULT_INBOX_ID = '00000000-0000-7000-8000-000000000001';

/**
 * A media belongs to a number on the channel: a customer's is downloaded with the token of the
 * inbox that received it, and an upload's channel id is valid for the number it was uploaded
 * through. Every media until now came or went through the default inbox: the column is added with
 * it as its default (kept in the catalogue, no rewrite), which is then dropped.
 */
export class MediaInboxes1764090000000 implements MigrationInterface {
  name = 'MediaInboxes1764090000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE media ADD COLUMN inbox_id uuid DEFAULT '${DEFAULT_INBOX_ID}' REFERENCES inboxes (id) ON DELETE SET NULL`);
    await q.query('ALTER TABLE media ALTER COLUMN inbox_id DROP DEFAULT');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE media DROP COLUMN inbox_id');
  }
}

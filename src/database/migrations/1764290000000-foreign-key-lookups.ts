import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An index led by every foreign key's column. Deleting or re-keying the row it refers to (an
 * inbox, a user, a team) makes PostgreSQL look up the rows that refer to it, for the cascade, the
 * SET NULL or the refusal; without an index that reads the whole table: deleting a user read every
 * canned response, deleting an inbox every contact and every media row. Partial where the column
 * is mostly empty (a contact blocked on one number, an upload sent through the channel, an inbox
 * routing to a team): the lookup's `= $1` implies NOT NULL, so the partial index serves it.
 * test/database.e2e.spec.ts checks that every foreign key has one.
 */
export class ForeignKeyLookups1764290000000 implements MigrationInterface {
  name = 'ForeignKeyLookups1764290000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX contacts_blocked_inbox_idx ON contacts (blocked_inbox_id) WHERE blocked_inbox_id IS NOT NULL');
    await q.query('CREATE INDEX media_inbox_idx ON media (inbox_id)');
    await q.query(
      'CREATE INDEX media_channel_upload_inbox_idx ON media (channel_upload_inbox_id) WHERE channel_upload_inbox_id IS NOT NULL',
    );
    await q.query('CREATE INDEX canned_responses_created_by_idx ON canned_responses (created_by)');
    await q.query('CREATE INDEX campaigns_created_by_idx ON campaigns (created_by)');
    await q.query('CREATE INDEX campaigns_inbox_idx ON campaigns (inbox_id)');
    await q.query('CREATE INDEX inboxes_assignment_team_idx ON inboxes (assignment_team_id) WHERE assignment_team_id IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of [
      'inboxes_assignment_team_idx',
      'campaigns_inbox_idx',
      'campaigns_created_by_idx',
      'canned_responses_created_by_idx',
      'media_channel_upload_inbox_idx',
      'media_inbox_idx',
      'contacts_blocked_inbox_idx',
    ])
      await q.query(`DROP INDEX ${index}`);
  }
}

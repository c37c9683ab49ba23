import { MigrationInterface, QueryRunner } from 'typeorm';

/** A customer blocked on the channel (POST /api/v1/contacts/:id/block): when, or null. */
export class ContactBlocking1763990000000 implements MigrationInterface {
  name = 'ContactBlocking1763990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE contacts ADD COLUMN blocked_at timestamptz(3)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE contacts DROP COLUMN blocked_at');
  }
}

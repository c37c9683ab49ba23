import { MigrationInterface, QueryRunner } from 'typeorm';

/** A canned response may be an interactive message (buttons, a list, a link, a form): its payload, whose body is the text. */
export class InteractiveCannedResponses1764140000000 implements MigrationInterface {
  name = 'InteractiveCannedResponses1764140000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE canned_responses ADD COLUMN interactive jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE canned_responses DROP COLUMN interactive');
  }
}

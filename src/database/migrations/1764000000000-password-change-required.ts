import { MigrationInterface, QueryRunner } from 'typeorm';

/** A password the service generated (the first admin's): the console asks for a new one at login until it changes. */
export class PasswordChangeRequired1764000000000 implements MigrationInterface {
  name = 'PasswordChangeRequired1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users ADD COLUMN password_change_required boolean NOT NULL DEFAULT false');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE users DROP COLUMN password_change_required');
  }
}

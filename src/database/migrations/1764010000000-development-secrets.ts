import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The secrets a development start generates when SESSION_SECRET or ENCRYPTION_KEY is unset (never
 * in production), kept in the database every instance shares when DATABASE_URL is set.
 */
export class DevelopmentSecrets1764010000000 implements MigrationInterface {
  name = 'DevelopmentSecrets1764010000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'CREATE TABLE development_secrets (name text PRIMARY KEY, value text NOT NULL, created_at timestamptz(3) NOT NULL DEFAULT now())',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE development_secrets');
  }
}

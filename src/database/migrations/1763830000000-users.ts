import { MigrationInterface, QueryRunner } from 'typeorm';

export class Users1763830000000 implements MigrationInterface {
  name = 'Users1763830000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        email text NOT NULL,
        name text NOT NULL,
        role text NOT NULL CHECK (role IN ('admin', 'agent')),
        password_hash text NOT NULL,
        beta_access boolean NOT NULL DEFAULT false,
        token_version integer NOT NULL DEFAULT 0,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX users_email_key ON users (email)');
    await queryRunner.query('CREATE INDEX users_created_at_id_idx ON users (created_at, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE users');
  }
}

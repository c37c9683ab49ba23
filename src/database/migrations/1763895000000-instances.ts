import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which processes are alive, so that the work a killed one had claimed is taken up in seconds:
 * each process writes its heartbeat to `instances`, and a claim of a send or a delivery records
 * who made it (`claimed_by`).
 */
export class Instances1763895000000 implements MigrationInterface {
  name = 'Instances1763895000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE instances (id uuid PRIMARY KEY, started_at timestamptz(3) NOT NULL, seen_at timestamptz(3) NOT NULL)');
    await q.query('ALTER TABLE messages ADD COLUMN claimed_by uuid');
    await q.query('ALTER TABLE webhook_deliveries ADD COLUMN claimed_by uuid');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE webhook_deliveries DROP COLUMN claimed_by');
    await q.query('ALTER TABLE messages DROP COLUMN claimed_by');
    await q.query('DROP TABLE instances');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook registrations and one delivery row per (event, registration): the attempt log. */
export class Webhooks1763850000000 implements MigrationInterface {
  name = 'Webhooks1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY,
        url text NOT NULL,
        events text[] NOT NULL,
        secret text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        disabled_reason text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE INDEX webhooks_created_at_id_idx ON webhooks (created_at DESC, id DESC)');

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_response text,
        last_error text,
        next_attempt_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX webhook_deliveries_webhook_event_key ON webhook_deliveries (webhook_id, event_id)');
    await q.query('CREATE INDEX webhook_deliveries_webhook_created_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC)');
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_deliveries, webhooks');
  }
}

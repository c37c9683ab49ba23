import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the retention prune: finished deliveries by the time they finished, and
 * deliveries by event (whether an event is still in use, and the ON DELETE CASCADE from events,
 * which would otherwise scan the whole table for every event deleted).
 */
export class Retention1763880000000 implements MigrationInterface {
  name = 'Retention1763880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)');
    await q.query(`CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE status <> 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX webhook_deliveries_finished_idx, webhook_deliveries_event_idx');
  }
}

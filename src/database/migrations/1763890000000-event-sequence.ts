import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events get their place in the stream when the relay hands them on (`seq`, from a sequence, one
 * relay at a time), not when they were written: an event of a long transaction is written early
 * and committed late, and a resume by creation time could skip it. Events already relayed are
 * numbered in the order they were relayed.
 */
export class EventSequence1763890000000 implements MigrationInterface {
  name = 'EventSequence1763890000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE SEQUENCE events_seq AS bigint');
    await q.query('ALTER TABLE events ADD COLUMN seq bigint');
    await q.query(`
      WITH ordered AS (SELECT id, row_number() OVER (ORDER BY relayed_at, created_at, id) AS seq FROM events WHERE relayed_at IS NOT NULL)
      UPDATE events e SET seq = ordered.seq FROM ordered WHERE e.id = ordered.id`);
    await q.query(`SELECT setval('events_seq', COALESCE(max(seq), 0) + 1, false) FROM events`);
    await q.query('CREATE UNIQUE INDEX events_seq_key ON events (seq)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX events_seq_key');
    await q.query('ALTER TABLE events DROP COLUMN seq');
    await q.query('DROP SEQUENCE events_seq');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event stream's access: the stream tickets already used (a ticket opens one stream, once;
 * kept until it would have expired anyway), and the streams open on every instance, so a user's
 * cap (STREAM_MAX_PER_USER) holds across replicas and a dead instance's streams stop counting.
 */
export class StreamAccess1764020000000 implements MigrationInterface {
  name = 'StreamAccess1764020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE stream_ticket_uses (jti text PRIMARY KEY, expires_at timestamptz(3) NOT NULL)');
    await q.query('CREATE INDEX stream_ticket_uses_expires_at ON stream_ticket_uses (expires_at)');
    await q.query(`CREATE TABLE event_streams (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
      opened_at timestamptz(3) NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE INDEX event_streams_user_id ON event_streams (user_id)');
    await q.query('CREATE INDEX event_streams_instance_id ON event_streams (instance_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE event_streams');
    await q.query('DROP TABLE stream_ticket_uses');
  }
}

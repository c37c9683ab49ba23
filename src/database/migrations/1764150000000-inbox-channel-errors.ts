import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The channel's last word that an inbox's token or business account is broken (190, 131031), kept
 * until an admin mends it (a new token or number, or a connection test that passes): the inbox
 * shows it and health fails, as no message can leave the number meanwhile.
 */
export class InboxChannelErrors1764150000000 implements MigrationInterface {
  name = 'InboxChannelErrors1764150000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE inboxes ADD COLUMN channel_error text, ADD COLUMN channel_error_at timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE inboxes DROP COLUMN channel_error, DROP COLUMN channel_error_at');
  }
}

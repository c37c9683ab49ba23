import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The team by e-mail. Users get a status (`invited` ones have no password until they accept) and
 * a notification e-mail preference. `account_tokens` keeps the single-use links of invitations
 * and password resets, as hashes only. `outbound_emails` is the recorded work of every e-mail
 * (attempts, next_attempt_at, claimed_by, as messages and deliveries), its content encrypted and
 * dropped once finished. Notifications say when they are due to be e-mailed (`email_due_at`,
 * cleared once e-mailed, skipped or read), `notification_digests` when each user's last digest
 * went out. Events may be for one user only (`audience`): the stream shows them to that user, and
 * webhooks never get them.
 */
export class TeamEmail1763930000000 implements MigrationInterface {
  name = 'TeamEmail1763930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE users
        ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'invited')),
        ADD COLUMN email_notifications text NOT NULL DEFAULT 'immediate' CHECK (email_notifications IN ('off', 'immediate', 'digest')),
        ALTER COLUMN password_hash DROP NOT NULL`);
    await q.query(`ALTER TABLE users ADD CONSTRAINT users_active_have_password CHECK (status = 'invited' OR password_hash IS NOT NULL)`);

    await q.query(`
      CREATE TABLE account_tokens (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('invitation', 'password_reset')),
        token_hash text NOT NULL,
        sent_to text NOT NULL,
        token_version integer NOT NULL,
        expires_at timestamptz(3) NOT NULL,
        used_at timestamptz(3),
        created_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX account_tokens_hash_key ON account_tokens (token_hash)');
    await q.query('CREATE INDEX account_tokens_user_idx ON account_tokens (user_id, purpose)');
    await q.query('CREATE INDEX account_tokens_expires_idx ON account_tokens (expires_at)');

    await q.query(`
      CREATE TABLE outbound_emails (
        id uuid PRIMARY KEY,
        user_id uuid REFERENCES users (id) ON DELETE CASCADE,
        kind text NOT NULL,
        to_address text NOT NULL,
        content text,
        status text NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        claimed_by uuid,
        provider_message_id text,
        last_error text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX outbound_emails_due_idx ON outbound_emails (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX outbound_emails_finished_idx ON outbound_emails (updated_at) WHERE status <> 'pending'`);
    await q.query('CREATE INDEX outbound_emails_user_idx ON outbound_emails (user_id)');

    await q.query('ALTER TABLE notifications ADD COLUMN email_due_at timestamptz(3)');
    await q.query('CREATE INDEX notifications_email_due_idx ON notifications (email_due_at) WHERE email_due_at IS NOT NULL');
    await q.query(`
      CREATE TABLE notification_digests (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        sent_at timestamptz(3) NOT NULL
      )`);

    await q.query('ALTER TABLE events ADD COLUMN audience uuid');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE events DROP COLUMN audience');
    await q.query('DROP TABLE notification_digests');
    await q.query('DROP INDEX notifications_email_due_idx');
    await q.query('ALTER TABLE notifications DROP COLUMN email_due_at');
    await q.query('DROP TABLE outbound_emails');
    await q.query('DROP TABLE account_tokens');
    await q.query(`DELETE FROM users WHERE status = 'invited'`);
    await q.query('ALTER TABLE users DROP CONSTRAINT users_active_have_password');
    await q.query('ALTER TABLE users ALTER COLUMN password_hash SET NOT NULL, DROP COLUMN email_notifications, DROP COLUMN status');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The administration a company expects: the audit log; per-account lockout (each account's recent
 * failed logins); two-factor login (the TOTP secret sealed with ENCRYPTION_KEY, the last time step
 * used so a code works once, recovery codes as hashes); sessions revoked one by one (logout); API
 * tokens as hashes, with the addresses each was used from.
 */
export class SecurityControls1764040000000 implements MigrationInterface {
  name = 'SecurityControls1764040000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE audit_log (
      id uuid PRIMARY KEY,
      at timestamptz(3) NOT NULL,
      actor_id uuid,
      actor text,
      ip text,
      action text NOT NULL,
      target text,
      details jsonb NOT NULL DEFAULT '{}'
    )`);
    await q.query('CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC)');
    await q.query('CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, at DESC, id DESC)');
    await q.query('CREATE INDEX audit_log_action_idx ON audit_log (action, at DESC, id DESC)');

    await q.query(`CREATE TABLE login_failures (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      recent timestamptz(3)[] NOT NULL DEFAULT '{}',
      locked_until timestamptz(3)
    )`);
    await q.query(`CREATE TABLE two_factor (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      secret text NOT NULL,
      enabled_at timestamptz(3),
      last_step integer
    )`);
    await q.query(`CREATE TABLE recovery_codes (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      code_hash text NOT NULL,
      used_at timestamptz(3),
      PRIMARY KEY (user_id, code_hash)
    )`);

    await q.query('CREATE TABLE revoked_sessions (id uuid PRIMARY KEY, expires_at timestamptz(3) NOT NULL)');
    await q.query('CREATE INDEX revoked_sessions_expires_at_idx ON revoked_sessions (expires_at)');

    await q.query(`CREATE TABLE api_tokens (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      created_at timestamptz(3) NOT NULL,
      expires_at timestamptz(3),
      last_used_at timestamptz(3),
      last_used_ip text
    )`);
    await q.query('CREATE INDEX api_tokens_user_idx ON api_tokens (user_id, created_at, id)');
    await q.query('CREATE INDEX api_tokens_created_idx ON api_tokens (created_at, id)');
    await q.query(`CREATE TABLE api_token_addresses (
      token_id uuid NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
      ip text NOT NULL,
      first_used_at timestamptz(3) NOT NULL,
      PRIMARY KEY (token_id, ip)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE api_token_addresses');
    await q.query('DROP TABLE api_tokens');
    await q.query('DROP TABLE revoked_sessions');
    await q.query('DROP TABLE recovery_codes');
    await q.query('DROP TABLE two_factor');
    await q.query('DROP TABLE login_failures');
    await q.query('DROP TABLE audit_log');
  }
}

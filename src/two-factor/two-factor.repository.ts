import { Injectable } from '@nestjs/common';
import { Db, execute, queryOne, sql } from '../database/sql';

/** A row of `two_factor`: the user's TOTP secret (sealed), on once `enabled_at` is set. */
export interface TwoFactorRow {
  user_id: string;
  secret: string;
  enabled_at: Date | null;
  /** The last time step a code was accepted for: a code works once. */
  last_step: number | null;
}

/** The SQL of `two_factor` and `recovery_codes`. */
@Injectable()
export class TwoFactorRepository {
  /** `lock`: held until the caller's transaction ends (two logins with one code cannot both pass). */
  find(db: Db, userId: string, lock = false): Promise<TwoFactorRow | null> {
    return queryOne(
      db,
      sql`SELECT user_id, secret, enabled_at, last_step FROM two_factor WHERE user_id = ${userId} ${sql.raw(lock ? 'FOR UPDATE' : '')}`,
    );
  }

  /** A new secret waiting for its first code; replaces an earlier one not enabled. */
  async savePending(db: Db, userId: string, secret: string): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO two_factor (user_id, secret, enabled_at, last_step) VALUES (${userId}, ${secret}, NULL, NULL)
          ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, enabled_at = NULL, last_step = NULL`,
    );
  }

  async enable(db: Db, userId: string, step: number, at: Date): Promise<void> {
    await execute(db, sql`UPDATE two_factor SET enabled_at = ${at}, last_step = ${step} WHERE user_id = ${userId}`);
  }

  async useStep(db: Db, userId: string, step: number): Promise<void> {
    await execute(db, sql`UPDATE two_factor SET last_step = ${step} WHERE user_id = ${userId}`);
  }

  /** Turns it off: the secret and the recovery codes go. */
  async delete(db: Db, userId: string): Promise<number> {
    await execute(db, sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`);
    return execute(db, sql`DELETE FROM two_factor WHERE user_id = ${userId}`);
  }

  async replaceRecoveryCodes(db: Db, userId: string, codeHashes: string[]): Promise<void> {
    await execute(db, sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`);
    for (const hash of codeHashes) await execute(db, sql`INSERT INTO recovery_codes (user_id, code_hash) VALUES (${userId}, ${hash})`);
  }

  /** Uses a recovery code once: whether it was the user's and unused. */
  async useRecoveryCode(db: Db, userId: string, codeHash: string): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`UPDATE recovery_codes SET used_at = now() WHERE user_id = ${userId} AND code_hash = ${codeHash} AND used_at IS NULL`,
      )) === 1
    );
  }

  async unusedRecoveryCodes(db: Db, userId: string): Promise<number> {
    return (await queryOne<{ count: number }>(
      db,
      sql`SELECT count(*)::int AS count FROM recovery_codes WHERE user_id = ${userId} AND used_at IS NULL`,
    ))!.count;
  }
}

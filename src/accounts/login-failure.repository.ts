import { Injectable } from '@nestjs/common';
import { Db, execute, queryOne, sql } from '../database/sql';

/** What one more failed login did to an account. */
export interface FailedLoginCount {
  /** Failures within the window, this one included. */
  failures: number;
  /** Set when this failure locked the account. */
  lockedUntil: Date | null;
}

/** The SQL of `login_failures`: each account's failed logins within the window (a sliding one), and its lock. */
@Injectable()
export class LoginFailureRepository {
  /**
   * Counts a failure at `now` in the caller's transaction: the failures of the last `windowMs`
   * are kept, and the `limit`-th of them locks the account until `now + lockMs` (and starts the
   * count over). A locked account's failure changes nothing. The row is locked by the update, so
   * concurrent failures all count.
   */
  async record(db: Db, userId: string, now: Date, limit: number, windowMs: number, lockMs: number): Promise<FailedLoginCount> {
    const windowStart = new Date(now.getTime() - windowMs);
    await execute(db, sql`INSERT INTO login_failures (user_id) VALUES (${userId}) ON CONFLICT DO NOTHING`);
    const row = await queryOne<{ failures: number }>(
      db,
      sql`UPDATE login_failures
             SET recent = array_append(ARRAY(SELECT t FROM unnest(recent) AS t WHERE t > ${windowStart} ORDER BY t), ${now}::timestamptz),
                 locked_until = NULL
           WHERE user_id = ${userId} AND (locked_until IS NULL OR locked_until <= ${now})
          RETURNING cardinality(recent) AS failures`,
    );
    // Locked already (by a concurrent failure): nothing new.
    if (!row || row.failures < limit) return { failures: row?.failures ?? 0, lockedUntil: null };
    const lockedUntil = new Date(now.getTime() + lockMs);
    await execute(db, sql`UPDATE login_failures SET recent = '{}', locked_until = ${lockedUntil} WHERE user_id = ${userId}`);
    return { failures: row.failures, lockedUntil };
  }

  /** Until when the account is locked (null: it is not), its row locked until the caller's transaction ends. */
  async lockedUntil(db: Db, userId: string, now: Date): Promise<Date | null> {
    const row = await queryOne<{ locked_until: Date | null }>(
      db,
      sql`SELECT locked_until FROM login_failures WHERE user_id = ${userId} AND locked_until > ${now} FOR UPDATE`,
    );
    return row?.locked_until ?? null;
  }

  /** Forgets the account's failures and lock (a successful login, an admin's unlock, a password reset); whether there were any. */
  async clear(db: Db, userId: string): Promise<boolean> {
    return (await execute(db, sql`DELETE FROM login_failures WHERE user_id = ${userId}`)) > 0;
  }
}

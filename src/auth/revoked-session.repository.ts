import { Injectable } from '@nestjs/common';
import { Db, execute, queryOne, sql } from '../database/sql';

/** The SQL of `revoked_sessions`: access tokens logged out before they expire, kept until they would have. */
@Injectable()
export class RevokedSessionRepository {
  async insert(db: Db, sessionId: string, expiresAt: Date): Promise<void> {
    await execute(db, sql`INSERT INTO revoked_sessions (id, expires_at) VALUES (${sessionId}, ${expiresAt}) ON CONFLICT DO NOTHING`);
  }

  async isRevoked(db: Db, sessionId: string): Promise<boolean> {
    return (await queryOne(db, sql`SELECT 1 FROM revoked_sessions WHERE id = ${sessionId}`)) !== null;
  }

  /** Deletes up to `limit` sessions that expired before `before`; answers how many. */
  prune(db: Db, before: Date, limit: number): Promise<number> {
    return execute(
      db,
      sql`DELETE FROM revoked_sessions WHERE id IN (SELECT id FROM revoked_sessions WHERE expires_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`,
    );
  }
}

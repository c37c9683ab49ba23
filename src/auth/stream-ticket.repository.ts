import { Injectable } from '@nestjs/common';
import { type Db, execute, sql } from '../database/sql';

/** The stream tickets used so far, each kept until it would have expired anyway. */
@Injectable()
export class StreamTicketRepository {
  /** Records the one use of ticket `jti`; false when it was used before. Forgets the uses of expired tickets on the way. */
  async recordUse(db: Db, jti: string, expiresAt: Date): Promise<boolean> {
    await execute(db, sql`DELETE FROM stream_ticket_uses WHERE expires_at < now()`);
    const recorded = await execute(
      db,
      sql`INSERT INTO stream_ticket_uses (jti, expires_at) VALUES (${jti}, ${expiresAt}) ON CONFLICT (jti) DO NOTHING`,
    );
    return recorded === 1;
  }
}

import { Injectable } from '@nestjs/common';
import { type Db, execute, queryOne, sql } from '../database/sql';

/** The class of the advisory locks that serialise one user's stream openings (the second key is the user's). */
const OPEN_STREAMS_LOCK_CLASS = 7_301;

/** The event streams open on every instance (a dead instance's go with its row in `instances`). */
@Injectable()
export class OpenStreamRepository {
  /**
   * Records stream `id` of `userId` on `instanceId` unless the user has `max` open already; in the
   * caller's transaction, whose lock makes two openings at once count each other.
   */
  async openUnlessAt(db: Db, stream: { id: string; userId: string; instanceId: string }, max: number): Promise<boolean> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(${OPEN_STREAMS_LOCK_CLASS}, hashtext(${stream.userId}))`);
    const open = await queryOne<{ count: number }>(
      db,
      sql`SELECT count(*)::int AS count FROM event_streams WHERE user_id = ${stream.userId}`,
    );
    if ((open?.count ?? 0) >= max) return false;
    await execute(
      db,
      sql`INSERT INTO event_streams (id, user_id, instance_id) VALUES (${stream.id}, ${stream.userId}, ${stream.instanceId})`,
    );
    return true;
  }

  async close(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM event_streams WHERE id = ${id}`);
  }

  /**
   * Deletes the rows of `instanceId` opened before `openedBefore` that are none of `openIds` (a
   * stream whose own delete failed); answers how many.
   */
  forgetClosed(db: Db, instanceId: string, openIds: string[], openedBefore: Date): Promise<number> {
    return execute(
      db,
      sql`DELETE FROM event_streams WHERE instance_id = ${instanceId} AND opened_at < ${openedBefore} AND id <> ALL(${openIds}::uuid[])`,
    );
  }
}

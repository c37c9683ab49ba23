import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { type Db, execute, query, queryOne, sql } from '../database/sql';
import type { TeamRow } from './team.entity';

const COLUMNS = sql.raw(`id, name, description, created_at, updated_at,
  ARRAY(SELECT m.user_id FROM team_members m WHERE m.team_id = teams.id ORDER BY m.user_id) AS member_ids,
  ARRAY(SELECT i.inbox_id FROM team_inboxes i WHERE i.team_id = teams.id ORDER BY i.inbox_id) AS inbox_ids`);
const OLDEST_FIRST = new Keyset<TeamRow>({ time: 'created_at', id: 'id' }, 'ASC', (row) => [row.created_at, row.id]);

/** The SQL of `teams`, `team_members` and `team_inboxes`. */
@Injectable()
export class TeamRepository {
  /** Oldest first, on teams_created_at_id_idx. */
  async list(db: Db, page: PageQuery): Promise<Page<TeamRow>> {
    const after = OLDEST_FIRST.after(page.cursor);
    const rows = await query<TeamRow>(
      db,
      sql`SELECT ${COLUMNS} FROM teams ${sql.where(after ? [after] : [])} ${OLDEST_FIRST.orderAndLimit(page)}`,
    );
    return OLDEST_FIRST.page(rows, page);
  }

  /**
   * Locked until the caller's transaction ends: `delete`, wholly; `change`, against other changes
   * and deletion (those who only use it are not held up); `use`, against deletion only.
   */
  find(db: Db, id: string, lock: 'delete' | 'change' | 'use' | null = null): Promise<TeamRow | null> {
    const locking = lock === null ? '' : { delete: 'FOR UPDATE', change: 'FOR NO KEY UPDATE', use: 'FOR KEY SHARE' }[lock];
    return queryOne(db, sql`SELECT ${COLUMNS} FROM teams WHERE id = ${id} ${sql.raw(locking)}`);
  }

  async insert(db: Db, team: TeamRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO teams (id, name, description, created_at, updated_at)
          VALUES (${team.id}, ${team.name}, ${team.description}, ${team.created_at}, ${team.updated_at})`,
    );
  }

  async update(db: Db, team: TeamRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE teams SET name = ${team.name}, description = ${team.description}, updated_at = ${team.updated_at} WHERE id = ${team.id}`,
    );
  }

  /** The team's members become exactly these users (uuids). */
  async setMembers(db: Db, id: string, userIds: string[]): Promise<void> {
    await execute(db, sql`DELETE FROM team_members WHERE team_id = ${id} AND NOT (user_id = ANY(${userIds}::uuid[]))`);
    await execute(db, sql`INSERT INTO team_members (team_id, user_id) SELECT ${id}, unnest(${userIds}::uuid[]) ON CONFLICT DO NOTHING`);
  }

  /** The team's inboxes become exactly these (uuids). */
  async setInboxes(db: Db, id: string, inboxIds: string[]): Promise<void> {
    await execute(db, sql`DELETE FROM team_inboxes WHERE team_id = ${id} AND NOT (inbox_id = ANY(${inboxIds}::uuid[]))`);
    await execute(db, sql`INSERT INTO team_inboxes (team_id, inbox_id) SELECT ${id}, unnest(${inboxIds}::uuid[]) ON CONFLICT DO NOTHING`);
  }

  /** Conversations and inbox policies that named it name no team from now on (their foreign keys say so). */
  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM teams WHERE id = ${id}`);
  }
}

import { Injectable } from '@nestjs/common';
import { type Db, execute, query, queryOne, sql } from '../database/sql';
import type { MacroRow } from './macro.entity';

const COLUMNS = sql.raw('id, name, visibility, owner_id, actions, created_at, updated_at');

/** The SQL of `macros`. */
@Injectable()
export class MacroRepository {
  /** The team's macros and the user's own, by name (a user has a few dozen at most). */
  listFor(db: Db, userId: string): Promise<MacroRow[]> {
    return query(
      db,
      sql`SELECT ${COLUMNS} FROM macros WHERE owner_id IS NULL OR owner_id = ${userId} ORDER BY lower(name), created_at, id`,
    );
  }

  /** How many macros the user owns (null: the team's). */
  countOwnedBy(db: Db, ownerId: string | null): Promise<number> {
    return queryOne<{ n: number }>(
      db,
      ownerId === null
        ? sql`SELECT count(*)::int AS n FROM macros WHERE owner_id IS NULL`
        : sql`SELECT count(*)::int AS n FROM macros WHERE owner_id = ${ownerId}`,
    ).then((row) => row!.n);
  }

  find(db: Db, id: string, lock = false): Promise<MacroRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM macros WHERE id = ${id} ${sql.raw(lock ? 'FOR UPDATE' : '')}`);
  }

  async insert(db: Db, macro: MacroRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO macros (${COLUMNS})
          VALUES (${macro.id}, ${macro.name}, ${macro.visibility}, ${macro.owner_id}, ${JSON.stringify(macro.actions)}, ${macro.created_at}, ${macro.updated_at})`,
    );
  }

  async update(db: Db, macro: MacroRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE macros SET name = ${macro.name}, visibility = ${macro.visibility}, owner_id = ${macro.owner_id},
                 actions = ${JSON.stringify(macro.actions)}, updated_at = ${macro.updated_at}
           WHERE id = ${macro.id}`,
    );
  }

  async remove(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM macros WHERE id = ${id}`);
  }
}

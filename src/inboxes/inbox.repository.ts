import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { Db, execute, query, queryOne, type Sql, sql } from '../database/sql';
import type { InboxRow } from './inbox.entity';

/** A jsonb column's parameter: the value as JSON text, null as SQL null. */
const json = (value: object | null) => (value === null ? null : JSON.stringify(value));

const COLUMNS = sql.raw(
  `id, name, phone_number_id, display_phone_number, business_account_id, status, access_token, app_secret, is_default, channel_error, channel_error_at,
   assignment_mode, assignment_capacity, assignment_team_id, assignment_changed_at, business_hours, greeting, away, auto_resolve_after_seconds,
   csat, created_at, updated_at`,
);

/** Oldest first: the default inbox, made by the migration, comes first. */
const OLDEST_FIRST = new Keyset<InboxRow>({ time: 'created_at', id: 'id' }, 'ASC', (row) => [row.created_at, row.id]);

/** The SQL of the `inboxes` table. */
@Injectable()
export class InboxRepository {
  /** A page of inboxes, oldest first, of those visible (null: every one; a company has a handful: a table scan is the plan). */
  async page(db: Db, page: PageQuery, visible: readonly string[] | null): Promise<Page<InboxRow>> {
    const where: Sql[] = visible === null ? [] : [sql`id = ANY(${[...visible]}::uuid[])`];
    const after = OLDEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    return OLDEST_FIRST.page(
      await query<InboxRow>(db, sql`SELECT ${COLUMNS} FROM inboxes ${sql.where(where)} ${OLDEST_FIRST.orderAndLimit(page)}`),
      page,
    );
  }

  /** Every inbox: for routing, which needs them all at once. */
  list(db: Db): Promise<InboxRow[]> {
    return query<InboxRow>(db, sql`SELECT ${COLUMNS} FROM inboxes`);
  }

  find(db: Db, id: string): Promise<InboxRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM inboxes WHERE id = ${id}`);
  }

  /** Writes the default inbox's channel fields as the settings describe them: changed settings are the operator's mend of a broken token. */
  async describeDefault(
    db: Db,
    id: string,
    fields: Pick<InboxRow, 'phone_number_id' | 'business_account_id' | 'access_token' | 'app_secret' | 'updated_at'>,
  ): Promise<void> {
    await execute(
      db,
      sql`UPDATE inboxes SET phone_number_id = ${fields.phone_number_id}, business_account_id = ${fields.business_account_id},
                             access_token = ${fields.access_token}, app_secret = ${fields.app_secret}, channel_error = NULL,
                             channel_error_at = NULL, updated_at = ${fields.updated_at}
           WHERE id = ${id}`,
    );
  }

  async insert(db: Db, row: InboxRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO inboxes (${COLUMNS})
          VALUES (${row.id}, ${row.name}, ${row.phone_number_id}, ${row.display_phone_number}, ${row.business_account_id}, ${row.status},
                  ${row.access_token}, ${row.app_secret}, ${row.is_default}, ${row.channel_error}, ${row.channel_error_at}, ${row.assignment_mode},
                  ${row.assignment_capacity}, ${row.assignment_team_id}, ${row.assignment_changed_at}, ${json(row.business_hours)},
                  ${json(row.greeting)}, ${json(row.away)}, ${row.auto_resolve_after_seconds}, ${json(row.csat)}, ${row.created_at}, ${row.updated_at})`,
    );
  }

  /** Whether the team works the inbox (`team_inboxes`, the teams module's): a team the router may assign through. */
  async teamWorks(db: Db, teamId: string, inboxId: string): Promise<boolean> {
    // The team first, as its deletion locks it before its rows of team_inboxes: one order, no deadlock.
    if (!(await queryOne(db, sql`SELECT 1 FROM teams WHERE id = ${teamId} FOR KEY SHARE`))) return false;
    return (await queryOne(db, sql`SELECT 1 FROM team_inboxes WHERE team_id = ${teamId} AND inbox_id = ${inboxId} FOR KEY SHARE`)) !== null;
  }

  /** The inboxes that close quiet conversations by themselves (a handful: a scan). */
  autoResolving(db: Db): Promise<{ id: string; auto_resolve_after_seconds: number }[]> {
    return query(db, sql`SELECT id, auto_resolve_after_seconds FROM inboxes WHERE auto_resolve_after_seconds IS NOT NULL`);
  }

  /** Whether the inbox hands its conversations out by itself (round_robin, balanced). */
  async assignsAutomatically(db: Db, id: string): Promise<boolean> {
    return (await queryOne(db, sql`SELECT 1 FROM inboxes WHERE id = ${id} AND assignment_mode <> 'manual'`)) !== null;
  }

  /** The inbox locked until the caller's transaction ends. */
  lock(db: Db, id: string): Promise<InboxRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM inboxes WHERE id = ${id} FOR UPDATE`);
  }

  /** Writes every field an admin may change, as the row now holds them; answers the row. */
  async update(db: Db, row: InboxRow): Promise<InboxRow> {
    return (await queryOne<InboxRow>(
      db,
      sql`UPDATE inboxes SET name = ${row.name}, phone_number_id = ${row.phone_number_id}, display_phone_number = ${row.display_phone_number},
                             business_account_id = ${row.business_account_id}, status = ${row.status}, access_token = ${row.access_token},
                             app_secret = ${row.app_secret}, channel_error = ${row.channel_error}, channel_error_at = ${row.channel_error_at},
                             assignment_mode = ${row.assignment_mode}, assignment_capacity = ${row.assignment_capacity},
                             assignment_team_id = ${row.assignment_team_id}, assignment_changed_at = ${row.assignment_changed_at},
                             business_hours = ${json(row.business_hours)}, greeting = ${json(row.greeting)}, away = ${json(row.away)},
                             auto_resolve_after_seconds = ${row.auto_resolve_after_seconds}, csat = ${json(row.csat)}, updated_at = ${row.updated_at}
           WHERE id = ${row.id} RETURNING ${COLUMNS}`,
    ))!;
  }

  /**
   * Whether PostgreSQL knows a time zone by that name (as `AT TIME ZONE` reads it, letter case
   * aside): its tz database may lack one the runtime's knows, and the facts' triggers read the
   * business hours' zone on every reply and close.
   */
  async knowsTimeZone(db: Db, zone: string): Promise<boolean> {
    return (await queryOne<{ known: boolean }>(
      db,
      sql`SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE lower(name) = lower(${zone})) AS known`,
    ))!.known;
  }

  /** The number as the channel shows it, learnt when the connection was tested; updated_at is left, as no setting changed. */
  async recordDisplayPhoneNumber(db: Db, id: string, displayPhoneNumber: string): Promise<void> {
    await execute(db, sql`UPDATE inboxes SET display_phone_number = ${displayPhoneNumber} WHERE id = ${id}`);
  }

  /**
   * Records the channel's word that the inbox's token or account is broken, or clears it (null);
   * updated_at is left, as no setting changed (the channel made of it stays). With `settingsOf`,
   * only while the inbox's settings are still those of that moment (its updated_at).
   */
  async recordChannelError(db: Db, id: string, error: string | null, settingsOf?: Date): Promise<void> {
    const unchanged = settingsOf === undefined ? sql.raw('') : sql`AND updated_at = ${settingsOf}`;
    await execute(
      db,
      error === null
        ? sql`UPDATE inboxes SET channel_error = NULL, channel_error_at = NULL WHERE id = ${id} AND channel_error IS NOT NULL`
        : sql`UPDATE inboxes SET channel_error = ${error}, channel_error_at = now() WHERE id = ${id} ${unchanged}`,
    );
  }

  /** Answers whether it existed; fails on the foreign key while a conversation is in it. */
  async delete(db: Db, id: string): Promise<boolean> {
    return (await execute(db, sql`DELETE FROM inboxes WHERE id = ${id}`)) > 0;
  }
}

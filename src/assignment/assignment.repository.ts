import { Injectable } from '@nestjs/common';
import { type Db, execute, query, type Sql, sql } from '../database/sql';
import type { AvailableAgent, WaitingConversation } from './agent-chooser';

/** The class of the advisory lock every router transaction holds: one hands out at a time, on every instance. */
const ROUTER_LOCK_CLASS = 7_302;

/** The open conversations of user `u`, in every inbox, on conversations_open_assignee_idx. */
const OPEN_OF_USER = sql.raw("(SELECT count(*)::int FROM conversations o WHERE o.assigned_to = u.id AND o.status = 'open')");

/** An agent's load as the team sees it. */
export interface AgentLoadRow {
  id: string;
  name: string;
  role: 'admin' | 'agent';
  availability: 'online' | 'busy' | 'offline';
  open: number;
  /** The smallest capacity of the inboxes that assign by themselves where they are a member; null: none limits them. */
  capacity: number | null;
  team_ids: string[];
}

/** A conversation that goes back to the queue: its agent left its inbox, or stayed offline past the timeout. */
export interface StrandedConversation {
  id: string;
  assigned_to: string;
}

/**
 * The router's reads (of the conversations, inboxes, users, teams and event streams the other
 * modules own): the queue of the inboxes that assign by themselves, the agents available to it,
 * the conversations that go back to it. Its writes go through those modules' services.
 */
@Injectable()
export class AssignmentRepository {
  /** Waits until no other router transaction runs, on any instance; held until the caller's transaction ends. */
  async lockRouter(db: Db): Promise<void> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(${ROUTER_LOCK_CLASS}, 0)`);
  }

  /**
   * Whether any conversation waits in an inbox that assigns by itself (public for the EXPLAIN test).
   * The inboxes first, then one probe of conversations_inbox_waiting_idx per such inbox: the limited
   * lateral keeps that order. Written as EXISTS, PostgreSQL turned it into a semi-join from the
   * waiting conversations, reading all of them (63 ms at 50,000 waiting, on every router turn).
   */
  anyWaitingStatement(): Sql {
    return sql`SELECT 1 FROM inboxes a
      CROSS JOIN LATERAL (SELECT 1 FROM conversations c WHERE c.inbox_id = a.id AND c.waiting_since IS NOT NULL
                           ORDER BY c.waiting_since LIMIT 1) waiting
      WHERE a.assignment_mode <> 'manual' AND a.status = 'active' LIMIT 1`;
  }

  async anyWaiting(db: Db): Promise<boolean> {
    return (await query(db, this.anyWaitingStatement())).length > 0;
  }

  /**
   * Up to `limit` conversations waiting in the active inboxes that assign by themselves, the
   * longest waiting first (after `after`, the last of a previous batch), locked until the caller's
   * transaction ends; those another transaction holds (a customer writing, an agent assigning) are
   * skipped: they are served at the next turn. On conversations_waiting_idx.
   */
  waiting(
    db: Db,
    limit: number,
    after: { waitingSince: Date; id: string } | null,
  ): Promise<(WaitingConversation & { waitingSince: Date })[]> {
    const afterLast = after ? sql`AND (c.waiting_since, c.id) > (${after.waitingSince}::timestamptz, ${after.id}::uuid)` : sql``;
    return query(
      db,
      // A team that no longer works the inbox is passed over: the conversation's, else the policy's, else none.
      sql`SELECT c.id, c.inbox_id AS "inboxId",
                 COALESCE((SELECT w.team_id FROM team_inboxes w WHERE w.team_id = c.team_id AND w.inbox_id = c.inbox_id),
                          (SELECT w.team_id FROM team_inboxes w WHERE w.team_id = i.assignment_team_id AND w.inbox_id = c.inbox_id)) AS "teamId",
                 i.assignment_mode AS mode,
                 i.assignment_capacity AS capacity, c.waiting_since AS "waitingSince"
            FROM conversations c JOIN inboxes i ON i.id = c.inbox_id
           WHERE c.waiting_since IS NOT NULL ${afterLast}
             AND c.inbox_id IN (SELECT a.id FROM inboxes a WHERE a.assignment_mode <> 'manual' AND a.status = 'active')
           ORDER BY c.waiting_since, c.id LIMIT ${limit}
             FOR UPDATE OF c SKIP LOCKED`,
    );
  }

  /**
   * The agents who take conversations now, among the members of `inboxIds`: active, `online`, and
   * present (an event stream open, or one ended or online chosen less than `timeoutMs` ago), with
   * their open conversations counted now. Locked until the caller's transaction ends (NO KEY
   * UPDATE, the lock the router's own write of their turn takes: taken now, it needs no upgrade
   * later, and nobody deletes them before the assignment commits).
   */
  available(db: Db, inboxIds: readonly string[], timeoutMs: number): Promise<AvailableAgent[]> {
    return query(
      db,
      sql`SELECT u.id,
                 ARRAY(SELECT m.inbox_id FROM inbox_members m WHERE m.user_id = u.id) AS "inboxIds",
                 ARRAY(SELECT t.team_id FROM team_members t WHERE t.user_id = u.id) AS "teamIds",
                 ${OPEN_OF_USER} AS open,
                 (extract(epoch FROM u.last_assigned_at) * 1000)::float8 AS "lastAssignedAt"
            FROM users u
           WHERE u.status = 'active' AND u.availability = 'online'
             AND (u.last_present_at > now() - make_interval(secs => ${timeoutMs / 1000})
                  OR EXISTS (SELECT 1 FROM event_streams s WHERE s.user_id = u.id))
             AND EXISTS (SELECT 1 FROM inbox_members m WHERE m.user_id = u.id AND m.inbox_id = ANY(${[...inboxIds]}::uuid[]))
           ORDER BY u.id
             FOR NO KEY UPDATE OF u`,
    );
  }

  /**
   * Up to `limit` open conversations of the inboxes that assign by themselves whose agent cannot
   * take them any more: an agent who is no longer a member of the inbox, or one who went `offline`
   * (from online or busy) and stayed so for `timeoutMs` while the inbox assigned by itself, and
   * had it before going offline (one given to them since, by a person, stays).
   * Snoozed ones stay with their agent. Read from the users (a few hundred) to their open
   * conversations on conversations_open_assignee_idx.
   */
  stranded(db: Db, timeoutMs: number, limit: number): Promise<StrandedConversation[]> {
    return query(
      db,
      sql`SELECT c.id, c.assigned_to
            FROM users u JOIN conversations c ON c.assigned_to = u.id AND c.status = 'open'
                 JOIN inboxes i ON i.id = c.inbox_id AND i.assignment_mode <> 'manual'
           WHERE ((u.availability = 'offline'
                   AND GREATEST(u.availability_changed_at, i.assignment_changed_at) <= now() - make_interval(secs => ${timeoutMs / 1000})
                   AND c.assigned_at <= u.availability_changed_at)
                  OR (u.role <> 'admin' AND NOT EXISTS (SELECT 1 FROM inbox_members m WHERE m.user_id = u.id AND m.inbox_id = c.inbox_id)))
           LIMIT ${limit}`,
    );
  }

  /** Every user's load, oldest account first (a team has hundreds at most). */
  loads(db: Db): Promise<AgentLoadRow[]> {
    return query(
      db,
      sql`SELECT u.id, u.name, u.role, u.availability,
                 ${OPEN_OF_USER} AS open,
                 (SELECT min(i.assignment_capacity) FROM inbox_members m JOIN inboxes i ON i.id = m.inbox_id
                   WHERE m.user_id = u.id AND i.assignment_mode <> 'manual') AS capacity,
                 ARRAY(SELECT t.team_id FROM team_members t WHERE t.user_id = u.id ORDER BY t.team_id) AS team_ids
            FROM users u WHERE u.status = 'active' ORDER BY u.created_at, u.id`,
    );
  }
}

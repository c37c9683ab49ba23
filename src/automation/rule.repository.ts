import { Injectable } from '@nestjs/common';
import type { Page, PageQuery } from '../common/pagination';
import { Keyset } from '../database/keyset';
import { type Db, execute, query, queryOne, sql } from '../database/sql';
import type { EventRow } from '../events/event.entity';
import type { WorkKind } from '../recorded-work/work-kind';
import type { RuleRow, RuleRunRow, TriggerRow } from './rule.entity';
import { RULE_EVENTS } from './rule-logic';

const COLUMNS = sql.raw('id, name, enabled, event, conditions, actions, position, disabled_reason, created_at, updated_at');
const NEWEST_FIRST = new Keyset<RuleRunRow>({ time: 'created_at', id: 'id' }, 'DESC', (row) => [row.created_at, row.id]);

/** The recorded work of the rules: a trigger is due until its run ends. */
export const TRIGGER_WORK = {
  table: 'automation_triggers',
  waiting: sql`w.status = 'pending'`,
} satisfies Pick<WorkKind, 'table' | 'waiting'>;

/** The SQL of `automation_rules`, `automation_triggers` and `automation_runs`. */
@Injectable()
export class RuleRepository {
  /** Every rule in the order they run (rules are few: an admin writes each). */
  list(db: Db): Promise<RuleRow[]> {
    return query(db, sql`SELECT ${COLUMNS} FROM automation_rules ORDER BY position, created_at, id`);
  }

  /** How many rules there are, the table held against other inserts until the caller's transaction ends (the limit stays exact). */
  async countForInsert(db: Db): Promise<number> {
    await execute(db, sql`LOCK TABLE automation_rules IN SHARE ROW EXCLUSIVE MODE`);
    return (await queryOne<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM automation_rules`))!.n;
  }

  /** The enabled rules of one event in their order, on automation_rules_event_idx. */
  enabledFor(db: Db, event: string): Promise<RuleRow[]> {
    return query(db, sql`SELECT ${COLUMNS} FROM automation_rules WHERE enabled AND event = ${event} ORDER BY position, created_at, id`);
  }

  find(db: Db, id: string, lock = false): Promise<RuleRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM automation_rules WHERE id = ${id} ${sql.raw(lock ? 'FOR UPDATE' : '')}`);
  }

  /** After the last rule. */
  async nextPosition(db: Db): Promise<number> {
    return (await queryOne<{ next: number }>(db, sql`SELECT coalesce(max(position) + 1, 0)::int AS next FROM automation_rules`))!.next;
  }

  /** Makes room at `position`: the rules there and after it (but `except`) move one down. */
  async makeRoomAt(db: Db, position: number, except: string): Promise<void> {
    await execute(db, sql`UPDATE automation_rules SET position = position + 1 WHERE position >= ${position} AND id <> ${except}`);
  }

  async insert(db: Db, rule: RuleRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO automation_rules (${COLUMNS})
          VALUES (${rule.id}, ${rule.name}, ${rule.enabled}, ${rule.event}, ${JSON.stringify(rule.conditions)}, ${JSON.stringify(rule.actions)},
                  ${rule.position}, ${rule.disabled_reason}, ${rule.created_at}, ${rule.updated_at})`,
    );
  }

  async update(db: Db, rule: RuleRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE automation_rules SET name = ${rule.name}, enabled = ${rule.enabled}, event = ${rule.event}, conditions = ${JSON.stringify(rule.conditions)},
                 actions = ${JSON.stringify(rule.actions)}, position = ${rule.position}, disabled_reason = ${rule.disabled_reason},
                 updated_at = ${rule.updated_at}
           WHERE id = ${rule.id}`,
    );
  }

  /**
   * Turns the rule off unless it is off already; answers whether this call did. Of two
   * transactions turning it off at once, the second waits for the first's row and then finds it off.
   */
  async disable(db: Db, id: string, reason: string, at: Date): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`UPDATE automation_rules SET enabled = false, disabled_reason = ${reason}, updated_at = ${at} WHERE id = ${id} AND enabled`,
      )) > 0
    );
  }

  async remove(db: Db, id: string): Promise<boolean> {
    return (await execute(db, sql`DELETE FROM automation_rules WHERE id = ${id}`)) > 0;
  }

  /**
   * In the relay's transaction: a trigger for each event rules run on (not one a rule's own
   * actions recorded), when an enabled rule of its type exists then. One statement for the batch.
   */
  async recordTriggers(db: Db, events: EventRow[], at: Date): Promise<void> {
    const triggers = events
      .filter((event) => !event.automated && (RULE_EVENTS as readonly string[]).includes(event.type) && !isNotice(event))
      .map((event) => ({ id: event.id, event_type: event.type, data: event.data, occurred_at: event.created_at }));
    if (triggers.length === 0) return;
    await execute(
      db,
      sql`INSERT INTO automation_triggers (id, event_type, data, occurred_at, status, next_attempt_at, created_at, updated_at)
          SELECT t.id, t.event_type, t.data, t.occurred_at, 'pending', ${at}, ${at}, ${at}
            FROM jsonb_to_recordset(${JSON.stringify(triggers)}::jsonb) AS t(id uuid, event_type text, data jsonb, occurred_at timestamptz)
           WHERE EXISTS (SELECT 1 FROM automation_rules r WHERE r.enabled AND r.event = t.event_type)
          ON CONFLICT (id) DO NOTHING`,
    );
  }

  /** The trigger while it is pending, without holding it. */
  peekPending(db: Db, id: string): Promise<TriggerRow | null> {
    return queryOne(
      db,
      sql`SELECT id, event_type, data, occurred_at, attempts FROM automation_triggers WHERE id = ${id} AND status = 'pending'`,
    );
  }

  /** The trigger, held for its run, while it is still pending (a run that ended, here or in another attempt, leaves nothing to do). */
  lockPending(db: Db, id: string): Promise<TriggerRow | null> {
    return queryOne(
      db,
      sql`SELECT id, event_type, data, occurred_at, attempts FROM automation_triggers WHERE id = ${id} AND status = 'pending' FOR UPDATE`,
    );
  }

  /** Its run ended, in the run's transaction: the log keeps what it did, so the row goes. */
  async removeTrigger(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM automation_triggers WHERE id = ${id}`);
  }

  /** Its attempts all failed (a bug, or the database refusing what a rule does): kept with the reason for an operator. */
  async failTrigger(db: Db, id: string, error: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE automation_triggers SET status = 'failed', error = ${error}, next_attempt_at = NULL, claimed_by = NULL, updated_at = now() WHERE id = ${id}`,
    );
  }

  /** Marks where one rule's changes begin in the run's transaction. */
  async savepoint(db: Db): Promise<void> {
    await execute(db, sql`SAVEPOINT rule_run`);
  }

  async releaseSavepoint(db: Db): Promise<void> {
    await execute(db, sql`RELEASE SAVEPOINT rule_run`);
  }

  /** Undoes one rule's changes, the rest of the run's transaction kept. */
  async rollbackToSavepoint(db: Db): Promise<void> {
    await execute(db, sql`ROLLBACK TO SAVEPOINT rule_run`);
  }

  async insertRun(db: Db, run: RuleRunRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO automation_runs (id, rule_id, trigger_id, event_type, conversation_id, outcome, actions, reason, created_at)
          VALUES (${run.id}, ${run.rule_id}, ${run.trigger_id}, ${run.event_type}, ${run.conversation_id}, ${run.outcome},
                  ${JSON.stringify(run.actions)}, ${run.reason}, ${run.created_at})`,
    );
  }

  /**
   * The retention prune's part: runs logged before `before`, and triggers that failed for good
   * before it, up to `limit` of each; answers how many it deleted.
   */
  async prune(db: Db, before: Date, limit: number): Promise<number> {
    const runs = await execute(
      db,
      sql`DELETE FROM automation_runs
           WHERE id IN (SELECT id FROM automation_runs WHERE created_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`,
    );
    const triggers = await execute(
      db,
      sql`DELETE FROM automation_triggers
           WHERE id IN (SELECT id FROM automation_triggers WHERE status = 'failed' AND updated_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`,
    );
    return runs + triggers;
  }

  /** A rule's runs, the newest first, on automation_runs_rule_idx. */
  async runs(db: Db, ruleId: string, page: PageQuery): Promise<Page<RuleRunRow>> {
    const after = NEWEST_FIRST.after(page.cursor);
    const rows = await query<RuleRunRow>(
      db,
      sql`SELECT id, rule_id, trigger_id, event_type, conversation_id, outcome, actions, reason, created_at FROM automation_runs
          ${sql.where([sql`rule_id = ${ruleId}`, ...(after ? [after] : [])])} ${NEWEST_FIRST.orderAndLimit(page)}`,
    );
    return NEWEST_FIRST.page(rows, page);
  }
}

/** A system notice (a number change) is recorded as message.received, but it is not the customer writing: no rule runs on it. */
function isNotice(event: EventRow): boolean {
  return event.type === 'message.received' && (event.data.message as { type?: unknown } | undefined)?.type === 'system';
}

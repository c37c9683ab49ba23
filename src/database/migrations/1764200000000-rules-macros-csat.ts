import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Satisfaction surveys, automation rules and macros; customers opted out of campaigns.
 *
 * `inboxes.csat` (`{enabled, question}` or null). On conversations, the survey of the last
 * episode an agent closed (`csat_message_id`) and its answer (`csat_rating`, `csat_comment`,
 * `csat_rated_at`; `csat_comment_until`: while the customer's next text is
 * the rating's comment). `events.automated`: recorded by a rule's actions, so no rule runs on it.
 *
 * `automation_rules` in their order (`position`); `automation_triggers`, recorded work: one row
 * per event that rules may act on, its id the event's, run once (all rules of the event in one
 * transaction, which deletes the row; one that failed for good stays, `failed`); `automation_runs`, the log: what each rule whose conditions held did
 * (one row per rule and trigger, which is also what makes a rule act once per trigger).
 * `macros`: saved actions, an agent's own (`personal`) or everyone's (`team`). `contacts.opted_out_at`:
 * since when the customer wants no campaign (null: they take them).
 */
export class RulesMacrosCsat1764200000000 implements MigrationInterface {
  name = 'RulesMacrosCsat1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE inboxes ADD COLUMN csat jsonb');
    await q.query('ALTER TABLE contacts ADD COLUMN opted_out_at timestamptz(3)');
    await q.query(`
      ALTER TABLE conversations
        ADD COLUMN csat_message_id uuid,
        ADD COLUMN csat_rating smallint CHECK (csat_rating BETWEEN 1 AND 5),
        ADD COLUMN csat_comment text,
        ADD COLUMN csat_rated_at timestamptz(3),
        ADD COLUMN csat_comment_until timestamptz(3)`);
    await q.query('ALTER TABLE events ADD COLUMN automated boolean NOT NULL DEFAULT false');
    await q.query(`
      CREATE TABLE automation_rules (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        enabled boolean NOT NULL,
        event text NOT NULL,
        conditions jsonb NOT NULL,
        actions jsonb NOT NULL,
        position integer NOT NULL,
        disabled_reason text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE INDEX automation_rules_event_idx ON automation_rules (event, position, id) WHERE enabled');
    await q.query(`
      CREATE TABLE automation_triggers (
        id uuid PRIMARY KEY,
        event_type text NOT NULL,
        data jsonb NOT NULL,
        occurred_at timestamptz(3) NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'failed')),
        error text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        claimed_by uuid,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX automation_triggers_due_idx ON automation_triggers (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`
      CREATE TABLE automation_runs (
        id uuid PRIMARY KEY,
        rule_id uuid NOT NULL REFERENCES automation_rules (id) ON DELETE CASCADE,
        trigger_id uuid NOT NULL,
        event_type text NOT NULL,
        conversation_id uuid,
        outcome text NOT NULL CHECK (outcome IN ('acted', 'disabled', 'failed')),
        actions jsonb NOT NULL,
        reason text,
        created_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX automation_runs_rule_trigger_key ON automation_runs (rule_id, trigger_id)');
    await q.query('CREATE INDEX automation_runs_rule_idx ON automation_runs (rule_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX automation_runs_created_idx ON automation_runs (created_at)');
    await q.query(`
      CREATE TABLE macros (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        visibility text NOT NULL CHECK (visibility IN ('personal', 'team')),
        owner_id uuid REFERENCES users (id) ON DELETE CASCADE,
        actions jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query('CREATE INDEX macros_owner_idx ON macros (owner_id, name, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE macros, automation_runs, automation_triggers, automation_rules');
    await q.query('ALTER TABLE events DROP COLUMN automated');
    await q.query(
      'ALTER TABLE conversations DROP COLUMN csat_comment_until, DROP COLUMN csat_rated_at, DROP COLUMN csat_comment, DROP COLUMN csat_rating, DROP COLUMN csat_message_id',
    );
    await q.query('ALTER TABLE contacts DROP COLUMN opted_out_at');
    await q.query('ALTER TABLE inboxes DROP COLUMN csat');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams, agents' availability, and the assignment of conversations by the router.
 *
 * `teams` with their members and the inboxes they work; a conversation may be handed to a team
 * (`conversations.team_id`).
 *
 * Availability: `users.availability` as the agent sets it, `availability_changed_at` (null until
 * they first change it: everyone starts `offline` without having gone anywhere), and
 * `last_present_at`, the last moment they were known to be at the console: when they set
 * themselves online, and when one of their event streams ends (a trigger on `event_streams`, so a
 * stream that ends with its instance's row counts too). While a stream is open they are present.
 *
 * The queue: `conversations.waiting_since`, set by a trigger when a conversation becomes open and
 * unassigned (created, reopened, unassigned) and cleared when it is assigned, closed or snoozed,
 * so no code path can forget it; the router takes the oldest first on its partial index.
 * `assigned_at` (same trigger): when its assignee got it, which tells a conversation taken before
 * its agent went offline from one given to them since.
 *
 * Per inbox: `assignment_mode` (`manual`, `round_robin`, `balanced`), `assignment_capacity`
 * (null: no limit), `assignment_team_id` and `assignment_changed_at` (when the mode last changed:
 * an agent away before an inbox became automatic keeps its conversations for the timeout after
 * that); per user `last_assigned_at`, the router's round. Times the triggers write are kept to
 * the millisecond, as the API and the lists' cursors carry them.
 */
export class TeamsAndAssignment1764180000000 implements MigrationInterface {
  name = 'TeamsAndAssignment1764180000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE teams (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX teams_name_key ON teams (lower(name))');
    await q.query('CREATE INDEX teams_created_at_id_idx ON teams (created_at, id)');
    await q.query(`
      CREATE TABLE team_members (
        team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, user_id)
      )`);
    await q.query('CREATE INDEX team_members_user_idx ON team_members (user_id, team_id)');
    await q.query(`
      CREATE TABLE team_inboxes (
        team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
        inbox_id uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, inbox_id)
      )`);
    await q.query('CREATE INDEX team_inboxes_inbox_idx ON team_inboxes (inbox_id, team_id)');

    await q.query(`
      ALTER TABLE users
        ADD COLUMN availability text NOT NULL DEFAULT 'offline' CHECK (availability IN ('online', 'busy', 'offline')),
        ADD COLUMN availability_changed_at timestamptz,
        ADD COLUMN last_present_at timestamptz,
        ADD COLUMN last_assigned_at timestamptz`);
    await q.query(`
      CREATE FUNCTION users_present_until_stream_ends() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE users SET last_present_at = now() WHERE id = OLD.user_id;
        RETURN NULL;
      END
      $$`);
    await q.query(`CREATE TRIGGER event_streams_presence AFTER DELETE ON event_streams
                     FOR EACH ROW EXECUTE FUNCTION users_present_until_stream_ends()`);

    await q.query(`
      ALTER TABLE inboxes
        ADD COLUMN assignment_mode text NOT NULL DEFAULT 'manual' CHECK (assignment_mode IN ('manual', 'round_robin', 'balanced')),
        ADD COLUMN assignment_capacity integer CHECK (assignment_capacity > 0),
        ADD COLUMN assignment_team_id uuid REFERENCES teams (id) ON DELETE SET NULL,
        ADD COLUMN assignment_changed_at timestamptz NOT NULL DEFAULT now()`);

    await q.query(`
      ALTER TABLE conversations
        ADD COLUMN team_id uuid REFERENCES teams (id) ON DELETE SET NULL,
        ADD COLUMN waiting_since timestamptz,
        ADD COLUMN assigned_at timestamptz`);
    await q.query('CREATE INDEX conversations_team_last_message_idx ON conversations (team_id, last_message_at DESC, id DESC)');
    // The queue in order (the router, the waiting list), and per inbox (is anyone waiting here, an agent's waiting list).
    await q.query('CREATE INDEX conversations_waiting_idx ON conversations (waiting_since, id) WHERE waiting_since IS NOT NULL');
    await q.query(
      'CREATE INDEX conversations_inbox_waiting_idx ON conversations (inbox_id, waiting_since, id) WHERE waiting_since IS NOT NULL',
    );
    await q.query(`CREATE INDEX conversations_open_assignee_idx ON conversations (assigned_to) WHERE status = 'open'`);
    await q.query(`
      CREATE FUNCTION conversations_assignment_times() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'open' AND NEW.assigned_to IS NULL THEN
          IF TG_OP = 'INSERT' OR NOT (OLD.status = 'open' AND OLD.assigned_to IS NULL) THEN
            NEW.waiting_since := date_trunc('milliseconds', clock_timestamp());
          END IF;
        ELSE
          NEW.waiting_since := NULL;
        END IF;
        IF NEW.assigned_to IS NULL THEN
          NEW.assigned_at := NULL;
        ELSIF TG_OP = 'INSERT' OR OLD.assigned_to IS DISTINCT FROM NEW.assigned_to THEN
          NEW.assigned_at := date_trunc('milliseconds', clock_timestamp());
        END IF;
        RETURN NEW;
      END
      $$`);
    await q.query(`CREATE TRIGGER conversations_assignment_times BEFORE INSERT OR UPDATE OF status, assigned_to ON conversations
                     FOR EACH ROW EXECUTE FUNCTION conversations_assignment_times()`);
    // The conversations waiting now wait since their last change (setting neither status nor assignee fires no trigger).
    await q.query(`UPDATE conversations SET waiting_since = updated_at WHERE status = 'open' AND assigned_to IS NULL`);
    await q.query(`UPDATE conversations SET assigned_at = updated_at WHERE assigned_to IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER conversations_assignment_times ON conversations');
    await q.query('DROP FUNCTION conversations_assignment_times()');
    await q.query('DROP INDEX conversations_open_assignee_idx');
    await q.query('ALTER TABLE conversations DROP COLUMN assigned_at, DROP COLUMN waiting_since, DROP COLUMN team_id');
    await q.query(
      'ALTER TABLE inboxes DROP COLUMN assignment_changed_at, DROP COLUMN assignment_team_id, DROP COLUMN assignment_capacity, DROP COLUMN assignment_mode',
    );
    await q.query('DROP TRIGGER event_streams_presence ON event_streams');
    await q.query('DROP FUNCTION users_present_until_stream_ends()');
    await q.query(
      'ALTER TABLE users DROP COLUMN last_assigned_at, DROP COLUMN last_present_at, DROP COLUMN availability_changed_at, DROP COLUMN availability',
    );
    await q.query('DROP TABLE team_inboxes');
    await q.query('DROP TABLE team_members');
    await q.query('DROP TABLE teams');
  }
}

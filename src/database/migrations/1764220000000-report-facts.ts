import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The facts the reports read, recorded as they happen so no report recomputes history from the
 * messages.
 *
 * `conversation_episodes`: one row per time a conversation was open, from its opening (created,
 * or reopened after a close) to its close (`resolved_at`). It keeps when the customer first wrote
 * in it, the first answer of an agent after that (automatic messages, notes and campaign messages
 * are not answers) and who gave it, how long the conversation waited in the queue (open and
 * unassigned), the agent and team who held it last, and the customer's rating of it. Durations are
 * kept in calendar seconds and in seconds within the inbox's business hours as they were then
 * (`business_seconds`).
 *
 * `conversation_holds`: who held an open conversation at each moment: one row per agent (or
 * nobody) and team from the moment they got it to the moment it changed hands or closed.
 *
 * `messages.assignee_id` and `messages.team_id`: the conversation's agent and team when the
 * message was written (set by the trigger that already sets its inbox), so messages count for the
 * agent who held the thread.
 *
 * Triggers keep all of it, in the transaction of the change, so no path that opens, assigns,
 * closes or writes in a conversation (an agent, a rule, the router, auto-resolve, a merge) can
 * forget a fact. Times are the rows' own (`updated_at`, `created_at`), which the service sets.
 * Users and teams are not foreign keys: a removed agent's figures stay theirs.
 *
 * Conversations that exist before this migration get one episode each, from their messages once:
 * a closed one as it was; an open one from the upgrade on (nothing says when it was last opened).
 * Their older messages name no agent or team (rewriting every message would lock them for minutes).
 */
export class ReportFacts1764220000000 implements MigrationInterface {
  name = 'ReportFacts1764220000000';

  async up(q: QueryRunner): Promise<void> {
    // The open seconds of the days from first_day to last_day (local dates), within [since, till).
    await q.query(`
      CREATE FUNCTION business_seconds_of_days(hours jsonb, since timestamptz, till timestamptz, first_day date, last_day date)
      RETURNS double precision LANGUAGE plpgsql STABLE AS $$
      DECLARE
        zone text := hours->>'timezone';
        day date := first_day;
        total double precision := 0;
        span jsonb;
        opens timestamptz;
        closes timestamptz;
      BEGIN
        WHILE day <= last_day LOOP
          IF NOT COALESCE(hours->'holidays', '[]') ? to_char(day, 'YYYY-MM-DD') THEN
            FOR span IN SELECT value FROM jsonb_array_elements(
              COALESCE(hours->'days'->((ARRAY['mon','tue','wed','thu','fri','sat','sun'])[extract(isodow FROM day)::int]), '[]'))
            LOOP
              opens := (day + (span->>0)::interval) AT TIME ZONE zone;
              closes := (day + (span->>1)::interval) AT TIME ZONE zone;
              total := total + GREATEST(0, extract(epoch FROM LEAST(closes, till) - GREATEST(opens, since)));
            END LOOP;
          END IF;
          day := day + 1;
        END LOOP;
        RETURN total;
      END
      $$`);
    // Seconds of [since, till) within the hours; the calendar's without hours. The days at both ends
    // are walked; whole weeks between them are counted by their hours, less their holidays.
    await q.query(`
      CREATE FUNCTION business_seconds(hours jsonb, since timestamptz, till timestamptz) RETURNS double precision
      LANGUAGE plpgsql STABLE AS $$
      DECLARE
        zone text;
        first_day date;
        last_day date;
        weeks integer;
        middle_from date;
        middle_to date;
        total double precision := 0;
        holiday text;
      BEGIN
        IF since IS NULL OR till IS NULL OR till <= since THEN RETURN 0; END IF;
        IF hours IS NULL THEN RETURN extract(epoch FROM till - since); END IF;
        zone := hours->>'timezone';
        first_day := (since AT TIME ZONE zone)::date;
        last_day := (till AT TIME ZONE zone)::date;
        weeks := (last_day - first_day - 1) / 7;
        IF weeks < 2 THEN RETURN business_seconds_of_days(hours, since, till, first_day, last_day); END IF;
        middle_from := first_day + 1;
        middle_to := middle_from + weeks * 7 - 1;
        total := business_seconds_of_days(hours, since, till, first_day, first_day)
               + business_seconds_of_days(hours, since, till, middle_to + 1, last_day);
        total := total + weeks * (
          SELECT COALESCE(sum(extract(epoch FROM (span->>1)::interval - (span->>0)::interval)), 0)
            FROM jsonb_each(COALESCE(hours->'days', '{}')) d, jsonb_array_elements(d.value) span);
        FOR holiday IN SELECT value FROM jsonb_array_elements_text(COALESCE(hours->'holidays', '[]')) LOOP
          IF holiday::date BETWEEN middle_from AND middle_to THEN
            total := total - (
              SELECT COALESCE(sum(extract(epoch FROM (span->>1)::interval - (span->>0)::interval)), 0)
                FROM jsonb_array_elements(COALESCE(hours->'days'->((ARRAY['mon','tue','wed','thu','fri','sat','sun'])[extract(isodow FROM holiday::date)::int]), '[]')) span);
          END IF;
        END LOOP;
        RETURN total;
      END
      $$`);
    await q.query(`
      CREATE TABLE conversation_episodes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        inbox_id uuid NOT NULL,
        opened_at timestamptz(3) NOT NULL,
        customer_wrote_at timestamptz(3),
        first_response_at timestamptz(3),
        first_responder_id uuid,
        first_response_seconds double precision,
        first_response_business_seconds double precision,
        resolved_at timestamptz(3),
        resolution_seconds double precision,
        resolution_business_seconds double precision,
        assigned_to uuid,
        team_id uuid,
        waiting_seconds double precision NOT NULL DEFAULT 0,
        waiting_since timestamptz(3),
        csat_rating smallint
      )`);
    await q.query(
      'CREATE UNIQUE INDEX conversation_episodes_open_idx ON conversation_episodes (conversation_id) WHERE resolved_at IS NULL',
    );
    await q.query('CREATE INDEX conversation_episodes_conversation_idx ON conversation_episodes (conversation_id, opened_at DESC)');
    await q.query('CREATE INDEX conversation_episodes_opened_idx ON conversation_episodes (opened_at)');
    await q.query('CREATE INDEX conversation_episodes_resolved_idx ON conversation_episodes (resolved_at) WHERE resolved_at IS NOT NULL');
    await q.query(
      'CREATE INDEX conversation_episodes_first_response_idx ON conversation_episodes (first_response_at) WHERE first_response_at IS NOT NULL',
    );
    await q.query(`
      CREATE TABLE conversation_holds (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        episode_id uuid NOT NULL REFERENCES conversation_episodes (id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        inbox_id uuid NOT NULL,
        user_id uuid,
        team_id uuid,
        -- Whether this hold brought the conversation to its agent, or to its team: not so when only
        -- the other of the two changed (a team set on an agent's conversation is not handed to them).
        new_agent boolean NOT NULL,
        new_team boolean NOT NULL,
        started_at timestamptz(3) NOT NULL,
        ended_at timestamptz(3)
      )`);
    await q.query('CREATE UNIQUE INDEX conversation_holds_current_idx ON conversation_holds (conversation_id) WHERE ended_at IS NULL');
    await q.query('CREATE INDEX conversation_holds_episode_idx ON conversation_holds (episode_id)');
    await q.query('CREATE INDEX conversation_holds_started_idx ON conversation_holds (started_at)');
    await q.query('CREATE INDEX conversation_holds_ended_idx ON conversation_holds (ended_at) WHERE ended_at IS NOT NULL');

    await q.query(`
      CREATE FUNCTION conversation_facts() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        -- The change's time, as the service set it.
        at timestamptz := CASE TG_OP WHEN 'INSERT' THEN NEW.created_at ELSE NEW.updated_at END;
        was_open boolean := TG_OP = 'UPDATE' AND OLD.status <> 'closed';
        is_open boolean := NEW.status <> 'closed';
        was_waiting boolean := TG_OP = 'UPDATE' AND OLD.status = 'open' AND OLD.assigned_to IS NULL;
        is_waiting boolean := NEW.status = 'open' AND NEW.assigned_to IS NULL;
        changed_hands boolean := TG_OP = 'UPDATE'
          AND (OLD.assigned_to IS DISTINCT FROM NEW.assigned_to OR OLD.team_id IS DISTINCT FROM NEW.team_id);
        episode uuid;
      BEGIN
        -- A removed user's or team's conversations are emptied by the foreign key, which sets no time: it happens now.
        IF TG_OP = 'UPDATE' AND NEW.updated_at = OLD.updated_at
           AND ((OLD.assigned_to IS NOT NULL AND NEW.assigned_to IS NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = OLD.assigned_to))
             OR (OLD.team_id IS NOT NULL AND NEW.team_id IS NULL AND NOT EXISTS (SELECT 1 FROM teams t WHERE t.id = OLD.team_id))) THEN
          at := date_trunc('milliseconds', clock_timestamp());
        END IF;
        IF TG_OP = 'UPDATE' AND OLD.inbox_id IS DISTINCT FROM NEW.inbox_id THEN
          UPDATE conversation_episodes SET inbox_id = NEW.inbox_id WHERE conversation_id = NEW.id;
          UPDATE conversation_holds SET inbox_id = NEW.inbox_id WHERE conversation_id = NEW.id;
        END IF;
        -- A rating (the same as the last one too: it is the episode's) goes to the last resolved episode.
        IF TG_OP = 'UPDATE' AND NEW.csat_rating IS NOT NULL AND OLD.csat_rated_at IS DISTINCT FROM NEW.csat_rated_at THEN
          UPDATE conversation_episodes SET csat_rating = NEW.csat_rating
           WHERE id = (SELECT e.id FROM conversation_episodes e WHERE e.conversation_id = NEW.id AND e.resolved_at IS NOT NULL
                        ORDER BY e.opened_at DESC LIMIT 1);
        END IF;
        -- Nothing the facts follow changed (a status written again, open to snoozed of an assigned one).
        IF was_open = is_open AND NOT changed_hands AND was_waiting = is_waiting THEN RETURN NULL; END IF;
        IF was_open AND (NOT is_open OR changed_hands) THEN
          UPDATE conversation_holds SET ended_at = at WHERE conversation_id = NEW.id AND ended_at IS NULL;
        END IF;
        IF was_open AND NOT is_open THEN
          UPDATE conversation_episodes e
             SET resolved_at = at,
                 resolution_seconds = extract(epoch FROM at - e.opened_at),
                 resolution_business_seconds = business_seconds((SELECT i.business_hours FROM inboxes i WHERE i.id = NEW.inbox_id), e.opened_at, at),
                 waiting_seconds = e.waiting_seconds + CASE WHEN e.waiting_since IS NULL THEN 0 ELSE GREATEST(0, extract(epoch FROM at - e.waiting_since)) END,
                 waiting_since = NULL,
                 -- Whoever held it at the close (the one just before, when the close itself unassigns).
                 assigned_to = CASE WHEN NEW.assigned_to IS NULL AND OLD.assigned_to IS DISTINCT FROM NEW.assigned_to
                                    THEN OLD.assigned_to ELSE NEW.assigned_to END,
                 team_id = CASE WHEN NEW.team_id IS NULL AND OLD.team_id IS DISTINCT FROM NEW.team_id THEN OLD.team_id ELSE NEW.team_id END
           WHERE e.conversation_id = NEW.id AND e.resolved_at IS NULL;
          RETURN NULL;
        END IF;
        IF NOT is_open THEN RETURN NULL; END IF;
        IF NOT was_open THEN
          INSERT INTO conversation_episodes (conversation_id, inbox_id, opened_at, assigned_to, team_id, waiting_since)
               VALUES (NEW.id, NEW.inbox_id, at, NEW.assigned_to, NEW.team_id, CASE WHEN is_waiting THEN at END)
            RETURNING id INTO episode;
        ELSE
          UPDATE conversation_episodes e
             SET assigned_to = NEW.assigned_to,
                 team_id = NEW.team_id,
                 waiting_seconds = e.waiting_seconds + CASE WHEN was_waiting AND NOT is_waiting AND e.waiting_since IS NOT NULL
                                                            THEN GREATEST(0, extract(epoch FROM at - e.waiting_since)) ELSE 0 END,
                 waiting_since = CASE WHEN is_waiting THEN COALESCE(e.waiting_since, at) ELSE NULL END
           WHERE e.conversation_id = NEW.id AND e.resolved_at IS NULL
          RETURNING e.id INTO episode;
        END IF;
        IF NOT was_open OR changed_hands THEN
          INSERT INTO conversation_holds (episode_id, conversation_id, inbox_id, user_id, team_id, new_agent, new_team, started_at)
               VALUES (episode, NEW.id, NEW.inbox_id, NEW.assigned_to, NEW.team_id,
                       NOT was_open OR OLD.assigned_to IS DISTINCT FROM NEW.assigned_to,
                       NOT was_open OR OLD.team_id IS DISTINCT FROM NEW.team_id, at);
        END IF;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER conversation_facts AFTER INSERT OR UPDATE OF status, assigned_to, team_id, inbox_id, csat_rating, csat_rated_at ON conversations
        FOR EACH ROW EXECUTE FUNCTION conversation_facts()`);

    // Messages name who held their conversation when they were written.
    await q.query('ALTER TABLE messages ADD COLUMN assignee_id uuid, ADD COLUMN team_id uuid');
    await q.query(`
      CREATE OR REPLACE FUNCTION messages_inbox_of_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          SELECT c.inbox_id, c.assigned_to, c.team_id INTO NEW.inbox_id, NEW.assignee_id, NEW.team_id
            FROM conversations c WHERE c.id = NEW.conversation_id;
        ELSE
          NEW.inbox_id := (SELECT c.inbox_id FROM conversations c WHERE c.id = NEW.conversation_id);
        END IF;
        RETURN NEW;
      END
      $$`);
    // The customer's first message of the open episode, and the first agent's answer after it.
    await q.query(`
      CREATE FUNCTION message_facts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.direction = 'inbound' THEN
          UPDATE conversation_episodes SET customer_wrote_at = NEW.created_at
           WHERE conversation_id = NEW.conversation_id AND resolved_at IS NULL AND customer_wrote_at IS NULL;
        ELSE
          UPDATE conversation_episodes e
             SET first_response_at = NEW.created_at,
                 first_responder_id = NEW.sent_by,
                 first_response_seconds = GREATEST(0, extract(epoch FROM NEW.created_at - e.customer_wrote_at)),
                 first_response_business_seconds = business_seconds(
                   (SELECT i.business_hours FROM inboxes i WHERE i.id = e.inbox_id), e.customer_wrote_at, NEW.created_at)
           WHERE e.conversation_id = NEW.conversation_id AND e.resolved_at IS NULL
             AND e.customer_wrote_at IS NOT NULL AND e.first_response_at IS NULL;
        END IF;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER message_facts AFTER INSERT ON messages FOR EACH ROW
        WHEN ((NEW.direction = 'inbound' AND NEW.type <> 'system')
           OR (NEW.direction = 'outbound' AND NEW.sent_by IS NOT NULL AND NOT NEW.automated AND NEW.campaign_id IS NULL))
        EXECUTE FUNCTION message_facts()`);

    // The conversations so far, one episode each. A closed one: opened when created, resolved at its
    // last change (or when its survey was sent, if the rating came after), answered by the first agent's
    // message after the customer's first. An open one: its episode starts now, the customer's
    // unanswered messages (those after the last agent's answer) waiting for a first response; its
    // durations count from the upgrade, as nothing says when it was last opened.
    await q.query(`
      INSERT INTO conversation_episodes (conversation_id, inbox_id, opened_at, customer_wrote_at, first_response_at, first_responder_id,
                                         first_response_seconds, first_response_business_seconds, resolved_at, resolution_seconds,
                                         resolution_business_seconds, assigned_to, team_id, waiting_since, csat_rating)
      SELECT c.id, c.inbox_id, c.created_at, wrote.created_at, answer.created_at, answer.sent_by,
             extract(epoch FROM answer.created_at - wrote.created_at), business_seconds(i.business_hours, wrote.created_at, answer.created_at),
             closed.at, extract(epoch FROM closed.at - c.created_at), business_seconds(i.business_hours, c.created_at, closed.at),
             c.assigned_to, c.team_id, NULL, c.csat_rating
        FROM conversations c
        JOIN inboxes i ON i.id = c.inbox_id
        LEFT JOIN messages survey ON survey.id = c.csat_message_id
        -- A rating came after the close's survey and moved updated_at: the survey's time is the close's.
        CROSS JOIN LATERAL (SELECT GREATEST(c.created_at, CASE WHEN c.csat_rated_at >= survey.created_at THEN survey.created_at ELSE c.updated_at END) AS at) closed
        LEFT JOIN LATERAL (SELECT m.created_at FROM messages m
                            WHERE m.conversation_id = c.id AND m.direction = 'inbound' AND m.type <> 'system'
                            ORDER BY m.created_at LIMIT 1) wrote ON true
        LEFT JOIN LATERAL (SELECT m.created_at, m.sent_by FROM messages m
                            WHERE m.conversation_id = c.id AND m.direction = 'outbound' AND m.sent_by IS NOT NULL AND NOT m.automated
                              AND m.campaign_id IS NULL AND m.created_at >= wrote.created_at
                            ORDER BY m.created_at LIMIT 1) answer ON true
       WHERE c.status = 'closed' AND wrote.created_at IS NOT NULL`);
    await q.query(`
      INSERT INTO conversation_episodes (conversation_id, inbox_id, opened_at, customer_wrote_at, assigned_to, team_id, waiting_since)
      SELECT c.id, c.inbox_id, now(), unanswered.created_at, c.assigned_to, c.team_id,
             CASE WHEN c.status = 'open' AND c.assigned_to IS NULL THEN now() END
        FROM conversations c
        LEFT JOIN LATERAL (SELECT max(m.created_at) AS at FROM messages m
                            WHERE m.conversation_id = c.id AND m.direction = 'outbound' AND m.sent_by IS NOT NULL AND NOT m.automated
                              AND m.campaign_id IS NULL) answered ON true
        LEFT JOIN LATERAL (SELECT m.created_at FROM messages m
                            WHERE m.conversation_id = c.id AND m.direction = 'inbound' AND m.type <> 'system'
                              AND (answered.at IS NULL OR m.created_at > answered.at)
                            ORDER BY m.created_at LIMIT 1) unanswered ON true
       WHERE c.status <> 'closed'`);
    await q.query(`
      INSERT INTO conversation_holds (episode_id, conversation_id, inbox_id, user_id, team_id, new_agent, new_team, started_at, ended_at)
      SELECT e.id, e.conversation_id, e.inbox_id, e.assigned_to, e.team_id, true, true, e.opened_at, e.resolved_at FROM conversation_episodes e`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER message_facts ON messages');
    await q.query('DROP FUNCTION message_facts()');
    await q.query(`
      CREATE OR REPLACE FUNCTION messages_inbox_of_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.inbox_id := (SELECT c.inbox_id FROM conversations c WHERE c.id = NEW.conversation_id);
        RETURN NEW;
      END
      $$`);
    await q.query('ALTER TABLE messages DROP COLUMN team_id, DROP COLUMN assignee_id');
    await q.query('DROP TRIGGER conversation_facts ON conversations');
    await q.query('DROP FUNCTION conversation_facts()');
    await q.query('DROP TABLE conversation_holds');
    await q.query('DROP TABLE conversation_episodes');
    await q.query('DROP FUNCTION business_seconds(jsonb, timestamptz, timestamptz)');
    await q.query('DROP FUNCTION business_seconds_of_days(jsonb, timestamptz, timestamptz, date, date)');
  }
}

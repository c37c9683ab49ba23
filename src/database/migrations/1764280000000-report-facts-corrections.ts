import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two corrections of the reports' facts (`report-facts`).
 *
 * `business_seconds` counted the whole weeks inside a long span as the week's opening hours: a week
 * with a clock change was an hour off where an opening interval spans the change (a day open
 * 00:00–24:00 has 23 or 25 hours then), and it cast every holiday to a date, so a holiday the
 * calendar has not (`2026-02-30`) failed the close or the answer that counted it. Now a week is
 * counted by its hours only when it is 168 real hours long and holds no holiday; any other week is
 * walked day by day, as the span's first and last days are, holidays compared as text.
 *
 * `conversation_episodes.first_response_team_id`: the team that held the conversation when its
 * first response was given (the message's own `team_id`), so first responses count for that team
 * and not for the one that held the conversation last. Episodes answered before this migration take
 * the team they were last held by, as the reports showed them until now. That backfill rewrites
 * the answered episodes with the table locked by the new column (about 2.5 s for 160,000
 * episodes): conversations' changes and messages wait for it, as for the migrations before it.
 */
export class ReportFactsCorrections1764280000000 implements MigrationInterface {
  name = 'ReportFactsCorrections1764280000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION business_seconds(hours jsonb, since timestamptz, till timestamptz) RETURNS double precision
      LANGUAGE plpgsql STABLE AS $$
      DECLARE
        zone text;
        first_day date;
        last_day date;
        weeks integer;
        middle_from date;
        week_start date;
        weekly double precision;
        total double precision := 0;
      BEGIN
        IF since IS NULL OR till IS NULL OR till <= since THEN RETURN 0; END IF;
        IF hours IS NULL THEN RETURN extract(epoch FROM till - since); END IF;
        zone := hours->>'timezone';
        first_day := (since AT TIME ZONE zone)::date;
        last_day := (till AT TIME ZONE zone)::date;
        weeks := (last_day - first_day - 1) / 7;
        IF weeks < 2 THEN RETURN business_seconds_of_days(hours, since, till, first_day, last_day); END IF;
        middle_from := first_day + 1;
        total := business_seconds_of_days(hours, since, till, first_day, first_day)
               + business_seconds_of_days(hours, since, till, middle_from + weeks * 7, last_day);
        weekly := (SELECT COALESCE(sum(extract(epoch FROM (span->>1)::interval - (span->>0)::interval)), 0)
                     FROM jsonb_each(COALESCE(hours->'days', '{}')) d, jsonb_array_elements(d.value) span);
        FOR w IN 0 .. weeks - 1 LOOP
          week_start := middle_from + w * 7;
          IF extract(epoch FROM ((week_start + 7)::timestamp AT TIME ZONE zone) - (week_start::timestamp AT TIME ZONE zone)) = 604800
             AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(COALESCE(hours->'holidays', '[]')) holiday
                              WHERE holiday.value BETWEEN to_char(week_start, 'YYYY-MM-DD') AND to_char(week_start + 6, 'YYYY-MM-DD')) THEN
            total := total + weekly;
          ELSE
            total := total + business_seconds_of_days(hours, since, till, week_start, week_start + 6);
          END IF;
        END LOOP;
        RETURN total;
      END
      $$`);
    await q.query('ALTER TABLE conversation_episodes ADD COLUMN first_response_team_id uuid');
    await q.query('UPDATE conversation_episodes SET first_response_team_id = team_id WHERE first_response_at IS NOT NULL');
    await q.query(MESSAGE_FACTS_WITH_TEAM);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(MESSAGE_FACTS_WITHOUT_TEAM);
    await q.query('ALTER TABLE conversation_episodes DROP COLUMN first_response_team_id');
    await q.query(`
      CREATE OR REPLACE FUNCTION business_seconds(hours jsonb, since timestamptz, till timestamptz) RETURNS double precision
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
  }
}

const MESSAGE_FACTS_WITH_TEAM = `
  CREATE OR REPLACE FUNCTION message_facts() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.direction = 'inbound' THEN
      UPDATE conversation_episodes SET customer_wrote_at = NEW.created_at
       WHERE conversation_id = NEW.conversation_id AND resolved_at IS NULL AND customer_wrote_at IS NULL;
    ELSE
      UPDATE conversation_episodes e
         SET first_response_at = NEW.created_at,
             first_responder_id = NEW.sent_by,
             first_response_team_id = NEW.team_id,
             first_response_seconds = GREATEST(0, extract(epoch FROM NEW.created_at - e.customer_wrote_at)),
             first_response_business_seconds = business_seconds(
               (SELECT i.business_hours FROM inboxes i WHERE i.id = e.inbox_id), e.customer_wrote_at, NEW.created_at)
       WHERE e.conversation_id = NEW.conversation_id AND e.resolved_at IS NULL
         AND e.customer_wrote_at IS NOT NULL AND e.first_response_at IS NULL;
    END IF;
    RETURN NULL;
  END
  $$`;

const MESSAGE_FACTS_WITHOUT_TEAM = `
  CREATE OR REPLACE FUNCTION message_facts() RETURNS trigger LANGUAGE plpgsql AS $$
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
  $$`;

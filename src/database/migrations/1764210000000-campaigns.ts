import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaigns: one template sent to an audience of contacts through one inbox, paced.
 *
 * `campaigns` is also recorded work (`campaign.dispatch`): while `scheduled` or `running` its
 * `next_attempt_at` says when its next step is due (the start at `scheduled_at`, then one step of
 * sends every 100 ms or when the pace allows). `campaign_recipients` is the audience as the start
 * resolved it, in order (`position`): `pending` until a step queues its message (`message_id`) or
 * skips it (`reason`); then it follows its message's status (a trigger on `messages`, so no path
 * that moves a status can forget it), `completed_at` when the send ended, `replied_at` when the
 * customer wrote back. `messages.campaign_id` names the campaign a message was sent for (kept when
 * the campaign is deleted: reports still count the send); `messages.sending_since` is set while an
 * attempt of a campaign's message is with the channel, so an attempt after a crash knows the
 * earlier one may have reached the customer and sends nothing (a campaign never sends twice).
 *
 * The totals are a ledger, `campaign_counters`, as the tabs' counts are: a statement trigger on
 * the recipients appends one row of deltas per campaign and statement; the fold sums it every few
 * seconds, so reading the totals of a campaign of 100,000 recipients reads a few rows.
 */
export class Campaigns1764210000000 implements MigrationInterface {
  name = 'Campaigns1764210000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaigns (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        inbox_id uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
        template jsonb NOT NULL,
        audience jsonb NOT NULL,
        scheduled_at timestamptz(3),
        rate_per_second integer NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled')),
        status_reason text,
        created_by uuid REFERENCES users (id) ON DELETE SET NULL,
        started_at timestamptz(3),
        finished_at timestamptz(3),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        claimed_by uuid,
        failures integer NOT NULL DEFAULT 0,
        last_error text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX campaigns_due_idx ON campaigns (next_attempt_at) WHERE status IN ('scheduled', 'running')`);
    await q.query('CREATE INDEX campaigns_created_idx ON campaigns (created_at DESC, id DESC)');
    await q.query(`
      CREATE TABLE campaign_recipients (
        campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        position integer NOT NULL,
        contact_id uuid REFERENCES contacts (id) ON DELETE SET NULL,
        status text NOT NULL CHECK (status IN ('pending', 'queued', 'sent', 'delivered', 'read', 'failed', 'skipped')),
        reason text,
        error_code integer,
        message_id uuid,
        replied_at timestamptz(3),
        completed_at timestamptz(3),
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (campaign_id, position)
      )`);
    await q.query('CREATE INDEX campaign_recipients_status_idx ON campaign_recipients (campaign_id, status, position)');
    await q.query(
      'CREATE INDEX campaign_recipients_replied_idx ON campaign_recipients (campaign_id, position) WHERE replied_at IS NOT NULL',
    );
    await q.query(
      'CREATE INDEX campaign_recipients_completed_idx ON campaign_recipients (campaign_id, completed_at) WHERE completed_at IS NOT NULL',
    );
    await q.query('CREATE UNIQUE INDEX campaign_recipients_message_key ON campaign_recipients (message_id) WHERE message_id IS NOT NULL');
    await q.query('CREATE INDEX campaign_recipients_contact_idx ON campaign_recipients (contact_id)');
    await q.query('ALTER TABLE messages ADD COLUMN campaign_id uuid, ADD COLUMN sending_since timestamptz(3)');

    await q.query(`
      CREATE TABLE campaign_counters (
        campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        recipients integer NOT NULL,
        queued integer NOT NULL,
        sent integer NOT NULL,
        delivered integer NOT NULL,
        read integer NOT NULL,
        replied integer NOT NULL,
        failed integer NOT NULL,
        skipped integer NOT NULL
      )`);
    await q.query('CREATE INDEX campaign_counters_campaign_idx ON campaign_counters (campaign_id)');

    // What one recipient in a state adds to each total: sent counts every message that reached the
    // customer's phone or further (delivered and read ones too), so statuses arriving out of order move nothing twice.
    await q.query(`
      CREATE FUNCTION campaign_counted(status text, replied_at timestamptz)
      RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
        SELECT ARRAY[(status IN ('pending', 'queued'))::int, (status IN ('sent', 'delivered', 'read'))::int,
                     (status IN ('delivered', 'read'))::int, (status = 'read')::int, (replied_at IS NOT NULL)::int,
                     (status = 'failed')::int, (status = 'skipped')::int]
      $$`);
    await q.query(`
      CREATE FUNCTION campaign_counters_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO campaign_counters (campaign_id, recipients, queued, sent, delivered, read, replied, failed, skipped)
        SELECT campaign_id, count(*), sum(c[1]), sum(c[2]), sum(c[3]), sum(c[4]), sum(c[5]), sum(c[6]), sum(c[7])
          FROM (SELECT campaign_id, campaign_counted(status, replied_at) AS c FROM added) r
         GROUP BY campaign_id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER campaign_counters_inserted AFTER INSERT ON campaign_recipients
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION campaign_counters_on_insert()`);
    await q.query(`
      CREATE FUNCTION campaign_counters_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO campaign_counters (campaign_id, recipients, queued, sent, delivered, read, replied, failed, skipped)
        SELECT campaign_id, 0, sum(n[1] - o[1]), sum(n[2] - o[2]), sum(n[3] - o[3]), sum(n[4] - o[4]), sum(n[5] - o[5]),
               sum(n[6] - o[6]), sum(n[7] - o[7])
          FROM (SELECT a.campaign_id, campaign_counted(a.status, a.replied_at) AS n, campaign_counted(b.status, b.replied_at) AS o
                  FROM after a JOIN before b USING (campaign_id, position)
                 WHERE a.status <> b.status OR (a.replied_at IS NULL) <> (b.replied_at IS NULL)) r
         GROUP BY campaign_id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER campaign_counters_updated AFTER UPDATE ON campaign_recipients
        REFERENCING OLD TABLE AS before NEW TABLE AS after FOR EACH STATEMENT EXECUTE FUNCTION campaign_counters_on_update()`);

    // A campaign's message moving on moves its recipient: the channel's 'played' (a voice message
    // heard) is 'read' here; a failure keeps the channel's reason and its code ("(#131026) …").
    await q.query(`
      CREATE FUNCTION campaign_recipient_on_message() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE campaign_recipients
           SET status = CASE NEW.status WHEN 'played' THEN 'read' ELSE NEW.status END,
               reason = CASE WHEN NEW.status = 'failed' THEN NEW.error END,
               error_code = CASE WHEN NEW.status = 'failed' THEN substring(NEW.error FROM '^\\(#(\\d{1,9})\\)')::integer END,
               completed_at = CASE WHEN NEW.status = 'queued' THEN NULL ELSE coalesce(completed_at, now()) END,
               updated_at = now()
         WHERE message_id = NEW.id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER campaign_recipient_message AFTER UPDATE OF status ON messages
        FOR EACH ROW WHEN (NEW.campaign_id IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status)
        EXECUTE FUNCTION campaign_recipient_on_message()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER campaign_recipient_message ON messages');
    await q.query('DROP FUNCTION campaign_recipient_on_message()');
    await q.query('ALTER TABLE messages DROP COLUMN campaign_id, DROP COLUMN sending_since');
    await q.query('DROP TABLE campaign_counters, campaign_recipients, campaigns');
    await q.query('DROP FUNCTION campaign_counters_on_insert(), campaign_counters_on_update(), campaign_counted(text, timestamptz)');
  }
}

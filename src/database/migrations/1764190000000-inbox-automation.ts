import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An inbox that works while nobody is looking: its business hours, its greeting and away
 * messages, and closing conversations that went quiet.
 *
 * `inboxes.business_hours` (null: always open), `greeting` and `away` (`{enabled, text}` or
 * null), `auto_resolve_after_seconds` (null: never). `messages.automated`: sent by the inbox
 * itself, not by an agent. `conversations.away_sent_at`: the away message goes at most once per
 * conversation in 12 hours.
 */
export class InboxAutomation1764190000000 implements MigrationInterface {
  name = 'InboxAutomation1764190000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE inboxes
        ADD COLUMN business_hours jsonb,
        ADD COLUMN greeting jsonb,
        ADD COLUMN away jsonb,
        ADD COLUMN auto_resolve_after_seconds integer CHECK (auto_resolve_after_seconds > 0)`);
    await q.query('ALTER TABLE messages ADD COLUMN automated boolean NOT NULL DEFAULT false');
    await q.query('ALTER TABLE conversations ADD COLUMN away_sent_at timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations DROP COLUMN away_sent_at');
    await q.query('ALTER TABLE messages DROP COLUMN automated');
    await q.query(
      'ALTER TABLE inboxes DROP COLUMN auto_resolve_after_seconds, DROP COLUMN away, DROP COLUMN greeting, DROP COLUMN business_hours',
    );
  }
}

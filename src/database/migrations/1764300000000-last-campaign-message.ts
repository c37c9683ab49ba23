import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a campaign last wrote in each conversation (`last_campaign_at`, the created_at of its newest
 * campaign message). A customer's message counts as a campaign's reply only within the week after
 * that campaign's message; most conversations never had one, or not that week, and the ingest now
 * knows it from the row it locks instead of probing the thread's messages on every message.
 */
export class LastCampaignMessage1764300000000 implements MigrationInterface {
  name = 'LastCampaignMessage1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations ADD COLUMN last_campaign_at timestamptz(3)');
    await q.query(`
      UPDATE conversations c SET last_campaign_at = sent.at
        FROM (SELECT conversation_id, max(created_at) AS at FROM messages
               WHERE campaign_id IS NOT NULL AND direction = 'outbound' GROUP BY conversation_id) sent
       WHERE c.id = sent.conversation_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations DROP COLUMN last_campaign_at');
  }
}

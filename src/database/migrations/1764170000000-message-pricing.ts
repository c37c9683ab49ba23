import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The channel's per-message pricing (since July 2025): besides the category, the pricing model
 * (`PMP`) and its type (`regular`, `free_customer_service`, `free_entry_point`), kept on each
 * outbound message, so the pricing report can sum what a month cost per inbox.
 */
export class MessagePricing1764170000000 implements MigrationInterface {
  name = 'MessagePricing1764170000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages ADD COLUMN pricing_type text, ADD COLUMN pricing_model text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages DROP COLUMN pricing_type, DROP COLUMN pricing_model');
  }
}

import { Injectable } from '@nestjs/common';
import { Db, query, type Sql, sql } from '../database/sql';

/** Outbound messages of one inbox with one pricing, counted. */
export interface PricingRow {
  inbox_id: string;
  category: string;
  type: string | null;
  pricing_model: string | null;
  messages: number;
}

export interface PricingFilter {
  from: Date;
  to: Date;
  inboxId?: string;
  /** The inboxes the reader sees; null: every one. */
  visibleInboxes: readonly string[] | null;
}

/** The SQL of the reports: aggregates over the tables of other modules, read only. */
@Injectable()
export class ReportRepository {
  /**
   * Outbound messages created in [from, to) that the channel priced, counted per inbox, category,
   * type and model. A range of messages_created_idx, or of messages_inbox_created_idx per inbox.
   */
  pricing(db: Db, filter: PricingFilter): Promise<PricingRow[]> {
    const where: Sql[] = [
      sql`direction = 'outbound'`,
      sql`pricing_category IS NOT NULL`,
      sql`created_at >= ${filter.from}`,
      sql`created_at < ${filter.to}`,
    ];
    if (filter.inboxId !== undefined) where.push(sql`inbox_id = ${filter.inboxId}`);
    if (filter.visibleInboxes !== null) where.push(sql`inbox_id = ANY(${[...filter.visibleInboxes]}::uuid[])`);
    return query<PricingRow>(
      db,
      sql`SELECT inbox_id, pricing_category AS category, pricing_type AS type, pricing_model, count(*)::int AS messages
            FROM messages ${sql.where(where)}
           GROUP BY inbox_id, pricing_category, pricing_type, pricing_model
           ORDER BY inbox_id, pricing_category, pricing_type NULLS LAST, pricing_model NULLS LAST`,
    );
  }
}

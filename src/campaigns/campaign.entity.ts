import type { TemplateToSend } from '../templates/templates.service';

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** `pending` until a step queues its message or skips it; then its message's status. */
export const RECIPIENT_STATUSES = ['pending', 'queued', 'sent', 'delivered', 'read', 'failed', 'skipped'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/** Who a campaign goes to: the contacts named, and the contacts that match every filter given (tags: any of them; labels: a conversation with any of them; attributes: each equal). */
export interface CampaignAudience {
  tags?: string[];
  labels?: string[];
  /** uuids */
  contact_ids?: string[];
  attributes?: Record<string, string | number | boolean>;
}

/** A row of `campaigns`. */
export interface CampaignRow {
  id: string;
  name: string;
  inbox_id: string;
  template: TemplateToSend;
  audience: CampaignAudience;
  scheduled_at: Date | null;
  rate_per_second: number;
  status: CampaignStatus;
  /** Why the campaign paused or ended by itself (its template no longer sendable, its inbox disabled); null when an admin did. */
  status_reason: string | null;
  created_by: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  attempts: number;
  next_attempt_at: Date | null;
  failures: number;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The totals of a campaign, read from its ledger. */
export interface CampaignTotals {
  recipients: number;
  queued: number;
  sent: number;
  delivered: number;
  read: number;
  replied: number;
  failed: number;
  skipped: number;
}

export const NO_TOTALS: CampaignTotals = { recipients: 0, queued: 0, sent: 0, delivered: 0, read: 0, replied: 0, failed: 0, skipped: 0 };

/** A row of `campaign_recipients`, with what the list shows of its contact. */
export interface RecipientRow {
  campaign_id: string;
  position: number;
  contact_id: string | null;
  status: RecipientStatus;
  reason: string | null;
  error_code: number | null;
  message_id: string | null;
  replied_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
  contact_name: string | null;
  contact_phone: string | null;
  contact_wa_user_id: string | null;
}

/** A recipient a step is about to send to: the contact as it is now. */
export interface PendingRecipient {
  position: number;
  contact_id: string | null;
  name: string | null;
  phone: string | null;
  wa_user_id: string | null;
  attributes: Record<string, string | number | boolean> | null;
  opted_out_at: Date | null;
  blocked_at: Date | null;
}

/** What a step decided for one recipient: its message queued, or skipped with the reason. */
export type RecipientOutcome = { position: number; message_id: string } | { position: number; skipped: string };

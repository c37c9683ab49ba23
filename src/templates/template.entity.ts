import type { TemplateParameters } from './template-parameters';

/** Only templates with this status can be sent. */
export const SENDABLE_STATUS = 'APPROVED';

/** The status a template gets when it disappears from the business account (deleted there). */
export const DELETED_STATUS = 'DELETED';

/** A row of `templates`: one template (name and language) of one catalogue. */
export interface TemplateRow {
  id: string;
  /** The business account's id whose catalogue it is, or SANDBOX_CATALOGUE. */
  catalogue: string;
  name: string;
  language: string;
  channel_template_id: string | null;
  category: string;
  status: string;
  parameter_format: string;
  components: Record<string, unknown>[];
  /** What a send must fill, derived from `components` at each sync. */
  parameters: TemplateParameters;
  created_at: Date;
  updated_at: Date;
}

/** A row of `template_syncs`: one catalogue's sync as recorded work. */
export interface TemplateSyncRow {
  /** The catalogue. */
  id: string;
  /** Sync attempts claimed so far (never reset: each attempt has its own job id). */
  attempts: number;
  /** Failed attempts since the last success, for the retry delay. */
  failures: number;
  next_attempt_at: Date | null;
  claimed_by: string | null;
  /** The end of the last successful sync; null until one succeeded. */
  synced_at: Date | null;
  /** Why the last attempt failed; null after a success. */
  error: string | null;
}

/** Which template a channel webhook change is about: the channel's id, or its name and language. */
export interface TemplateReference {
  channelTemplateId: string | null;
  name: string | null;
  language: string | null;
}

/**
 * A change of a template the channel webhook reported (fields `message_template_status_update` and
 * `template_category_update`), with the business account whose catalogue it is (the entry's `id`).
 */
export type TemplateChange =
  | { kind: 'status'; businessAccountId: string | null; template: TemplateReference; event: string; reason: string | null }
  | { kind: 'category'; businessAccountId: string | null; template: TemplateReference; category: string };

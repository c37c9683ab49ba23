import type { BusinessHours } from './business-hours';

export const INBOX_STATUSES = ['active', 'disabled'] as const;
/** `disabled`: kept with its conversations, but neither receiving nor sending. */
export type InboxStatus = (typeof INBOX_STATUSES)[number];

export const ASSIGNMENT_MODES = ['manual', 'round_robin', 'balanced'] as const;
/**
 * How the inbox's conversations reach an agent: `manual`, by people; `round_robin`, to the online
 * member assigned least recently; `balanced`, to the online member with the fewest open.
 */
export type AssignmentMode = (typeof ASSIGNMENT_MODES)[number];

/** A message the inbox sends by itself, when enabled. */
/** The satisfaction survey sent when an agent closes a conversation inside the customer's 24 hours. */
export interface CsatSettings {
  enabled: boolean;
  /** The survey's body, above its five ratings. */
  question: string;
}

export interface AutomaticMessage {
  enabled: boolean;
  text: string;
}

/** A row of `inboxes`: one WhatsApp phone number of the business. */
export interface InboxRow {
  id: string;
  name: string;
  /** The channel's id of the number (`value.metadata.phone_number_id` of its webhooks); null for the sandbox. */
  phone_number_id: string | null;
  display_phone_number: string | null;
  business_account_id: string | null;
  status: InboxStatus;
  /** Sealed with ENCRYPTION_KEY (SecretBox); never answered. Null: the inbox is the sandbox. */
  access_token: string | null;
  /** Sealed with ENCRYPTION_KEY; the key its webhooks' signatures are checked with. */
  app_secret: string | null;
  is_default: boolean;
  /** The channel's refusal that said the token or business account is broken (`(#190) …`), until an admin mends it; null when none. */
  channel_error: string | null;
  channel_error_at: Date | null;
  assignment_mode: AssignmentMode;
  /** The most open conversations (in every inbox) an agent may have for the router to give them one of this inbox; null: no limit. */
  assignment_capacity: number | null;
  /** The router gives conversations to this team's members only (those of the inbox); null: to any member. */
  assignment_team_id: string | null;
  /** When `assignment_mode` last changed. */
  assignment_changed_at: Date;
  /** Null: always open. */
  business_hours: BusinessHours | null;
  /** Sent on a customer's first message of a new conversation (inside business hours). */
  greeting: AutomaticMessage | null;
  /** Sent when a customer writes outside business hours, at most once per conversation in 12 hours. */
  away: AutomaticMessage | null;
  /** The survey after an agent closes a conversation; null: none. */
  csat: CsatSettings | null;
  /** An open conversation without a message for this long is closed; null: never. */
  auto_resolve_after_seconds: number | null;
  created_at: Date;
  updated_at: Date;
}

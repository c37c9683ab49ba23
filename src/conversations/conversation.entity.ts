import type { MessageDirection, MessageStatus } from './message.entity';

/** `snoozed`: hidden from the open ones until `snoozed_until` or until the customer writes, whichever comes first. */
export type ConversationStatus = 'open' | 'snoozed' | 'closed';
export const CONVERSATION_STATUSES: ConversationStatus[] = ['open', 'snoozed', 'closed'];

/** A row of `conversations`: the one conversation of a contact (its customer) in one inbox. */
export interface ConversationRow {
  id: string;
  contact_id: string;
  /** The inbox (WhatsApp number) it is held on: a customer has one conversation per inbox. */
  inbox_id: string;
  status: ConversationStatus;
  assigned_to: string | null;
  last_message_at: Date;
  /** The channel's timestamp of the customer's last message: the 24-hour window counts from it. */
  last_inbound_at: Date | null;
  /** When a snoozed conversation opens again by itself; set exactly while the status is `snoozed`. */
  snoozed_until: Date | null;
  /**
   * The newest inbound message's place in the thread's order (its created_at and id), the key of
   * a read marker: unread for a user when it is after theirs. Null while the customer never wrote.
   */
  last_received_at: Date | null;
  last_received_id: string | null;
  /** The team it is handed to; null: none. */
  team_id: string | null;
  /** Set by a trigger exactly while it is open and unassigned: since when it waits for an agent (the queue's order). */
  waiting_since: Date | null;
  /** The customer's answer to the satisfaction survey of the last episode an agent closed (1-5), with their comment; null until they answer. */
  csat_rating: number | null;
  csat_comment: string | null;
  csat_rated_at: Date | null;
  /** The survey sent for the last episode an agent closed: a rating that answers it is kept. Null: no survey was sent yet. */
  csat_message_id: string | null;
  /** Until when the customer's next text is the comment of their rating; null: none is awaited. */
  csat_comment_until: Date | null;
  /** When a campaign last wrote here (its message's created_at): a customer's message within the week after may be its reply. */
  last_campaign_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A conversation with its customer, its labels and its newest message, as every answer and event shows it. */
export interface ConversationWithCustomer extends Omit<
  ConversationRow,
  'contact_id' | 'last_received_at' | 'last_received_id' | 'csat_message_id' | 'csat_comment_until' | 'last_campaign_at'
> {
  customer_name: string | null;
  /** Null for a customer the channel knows only by their user id. */
  customer_phone: string | null;
  customer_wa_user_id: string | null;
  customer_username: string | null;
  /** The names of its labels (from `conversation_labels` and `labels`), in no particular order. */
  labels: string[];
  /** The newest message's columns, all null when the thread is empty. */
  last_message_id: string | null;
  last_message_direction: MessageDirection | null;
  last_message_type: string | null;
  last_message_text: string | null;
  last_message_status: MessageStatus | null;
  last_message_created_at: Date | null;
  /** The reader's unread inbound messages (up to UNREAD_COUNT_LIMIT); absent when read for nobody in particular (events). */
  unread_count?: number;
}

/** Where counting a reader's unread messages stops: a client shows "999+", and a flooded thread costs no more than this. */
export const UNREAD_COUNT_LIMIT = 1000;

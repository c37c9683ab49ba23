/** `internal`: a private note of the team, never sent to the channel. */
export const MESSAGE_DIRECTIONS = ['inbound', 'outbound', 'internal'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];
/** Inbound messages are `received`; outbound ones move queued -> sent -> delivered -> read -> played (voice messages), or to failed; notes are `sent` once stored. */
export const MESSAGE_STATUSES = ['received', 'queued', 'sent', 'delivered', 'read', 'played', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** A row of `messages`. */
export interface MessageRow {
  id: string;
  conversation_id: string;
  direction: MessageDirection;
  type: string;
  /** What a list shows: the text, caption, chosen title, order summary or system body of the types that have one. */
  text: string | null;
  /** The payload of the type (`image`, `template`, `location`, …): the channel's for inbound messages, the API's for outbound ones. */
  content: Record<string, unknown> | null;
  status: MessageStatus;
  error: string | null;
  channel_message_id: string | null;
  sent_by: string | null;
  /** Sent by the inbox itself (a greeting, an away message, a closing note), not by an agent. */
  automated: boolean;
  idempotency_key: string | null;
  request_hash: string | null;
  channel_timestamp: Date | null;
  /** The media the message carries (an image, a document, …), if any. */
  media_id: string | null;
  /** Outbound: send attempts made so far. */
  attempts: number;
  /** Outbound and queued: when the next send attempt is due; null once sent or failed. */
  next_attempt_at: Date | null;
  /** The message of the same conversation this one quotes (replies to). */
  reply_to_id: string | null;
  /** Inbound: the click-to-WhatsApp ad or post the customer came from, as the channel described it. */
  referral: Record<string, unknown> | null;
  /** Outbound: the channel's pricing category from its latest status (`marketing`, `utility`, `service`, …). */
  pricing_category: string | null;
  /** Outbound: the pricing type of its latest status that had one (`regular`, `free_customer_service`, `free_entry_point`). */
  pricing_type: string | null;
  /** Outbound: the pricing model of its latest status that had one (`PMP`, per-message pricing; `CBP` before July 2025). */
  pricing_model: string | null;
  /** Outbound: the campaign it was sent for (the id stays when the campaign is deleted). */
  campaign_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A message the inbox writes by itself at `at` (`automated`, sent by nobody): a text queued for
 * the customer and due now, or a note of the team (stored `sent`, nothing due).
 */
export function automatedMessage(conversationId: string, kind: 'text' | 'note', text: string, id: string, at: Date): MessageRow {
  const note = kind === 'note';
  return {
    id,
    conversation_id: conversationId,
    direction: note ? 'internal' : 'outbound',
    type: kind,
    text,
    content: note ? { mentions: [] } : null,
    status: note ? 'sent' : 'queued',
    error: null,
    channel_message_id: null,
    sent_by: null,
    automated: true,
    idempotency_key: null,
    request_hash: null,
    channel_timestamp: null,
    media_id: null,
    attempts: 0,
    next_attempt_at: note ? null : at,
    reply_to_id: null,
    referral: null,
    pricing_category: null,
    pricing_type: null,
    pricing_model: null,
    campaign_id: null,
    created_at: at,
    updated_at: at,
  };
}

/** A message found by a search across threads, with the phone of its conversation's customer. */
export interface FoundMessage extends MessageRow {
  customer_phone: string | null;
}

/** A queued message claimed for one send attempt, with the customer it goes to. */
export interface MessageToSend {
  id: string;
  attempts: number;
  type: string;
  text: string | null;
  content: Record<string, unknown> | null;
  media_id: string | null;
  /** E.164; null for a customer known only by their user id. */
  customer_phone: string | null;
  customer_wa_user_id: string | null;
  /** The inbox of its conversation: the number it leaves from. */
  inbox_id: string;
  /** The channel id of the message it replies to, when it has one by now. */
  reply_to_channel_message_id: string | null;
  /** When it was queued: the start of its delivery time. */
  created_at: Date;
  /** The campaign it is sent for, if any. */
  campaign_id: string | null;
  /** Set while an attempt of a campaign's message is with the channel: found set, an earlier attempt died there. */
  sending_since: Date | null;
}

/** What the channel said a message costs, on its statuses' `pricing`: each part null where it said nothing. */
export interface MessagePricing {
  category: string | null;
  type: string | null;
  model: string | null;
}

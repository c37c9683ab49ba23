export type MessageDirection = 'inbound' | 'outbound';
/** Inbound messages are `received`; outbound ones move queued -> sent -> delivered -> read, or to failed. */
export type MessageStatus = 'received' | 'queued' | 'sent' | 'delivered' | 'read' | 'failed';

/** A row of `messages`. */
export interface MessageRow {
  id: string;
  conversation_id: string;
  direction: MessageDirection;
  type: string;
  /** The text of a text message, or the caption, title or emoji of other types that have one. */
  text: string | null;
  /** The payload of the type (`image`, `template`, `location`, …): the channel's for inbound messages, the API's for outbound ones. */
  content: Record<string, unknown> | null;
  status: MessageStatus;
  error: string | null;
  channel_message_id: string | null;
  sent_by: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  channel_timestamp: Date | null;
  /** The media the message carries (an image, a document, …), if any. */
  media_id: string | null;
  /** Outbound: send attempts made so far. */
  attempts: number;
  /** Outbound and queued: when the next send attempt is due; null once sent or failed. */
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A queued message claimed for one send attempt, with the customer it goes to. */
export interface MessageToSend {
  id: string;
  attempts: number;
  type: string;
  text: string | null;
  content: Record<string, unknown> | null;
  media_id: string | null;
  /** E.164. */
  customer_phone: string;
}

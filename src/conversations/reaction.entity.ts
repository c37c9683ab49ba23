/** Who reacted: the customer, or an agent (the user's uuid). */
export const CUSTOMER_REACTOR = 'customer';

/** A row of `message_reactions`: one reactor's reaction to one message; an empty emoji is a removed one. */
export interface ReactionRow {
  message_id: string;
  reactor: string;
  emoji: string;
  /** The customer's reactions: the channel id and time of the reaction message that set it. */
  channel_message_id: string | null;
  channel_timestamp: Date | null;
  /** When this emoji was set (or removed). */
  created_at: Date;
}

export type ReactionSendStatus = 'queued' | 'sent' | 'failed' | 'superseded';

/** An agent's reaction claimed for one send attempt, with where it goes. */
export interface ReactionToSend {
  id: string;
  attempts: number;
  emoji: string;
  /** The channel id of the message reacted to. */
  target_channel_message_id: string;
  /** E.164; null for a customer known only by their user id. */
  customer_phone: string | null;
  customer_wa_user_id: string | null;
  /** The inbox of its conversation: the number it leaves from. */
  inbox_id: string;
}

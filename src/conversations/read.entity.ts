/** A row of `conversation_reads`: how far one user has read one conversation. */
export interface ConversationReadRow {
  conversation_id: string;
  user_id: string;
  /** The newest message read, and its created_at: the thread's keyset order, so unread messages are those after it. */
  last_read_message_id: string;
  last_read_at: Date;
  updated_at: Date;
}

/** A read receipt claimed for one attempt: the customer's message to mark read at the channel. */
export interface ReadReceiptToSend {
  id: string;
  attempts: number;
  channel_message_id: string;
  /** The inbox of the message's conversation: the number that received it, which tells the channel. */
  inbox_id: string;
}

export type NotificationType = 'conversation.assigned' | 'message.received' | 'mention';
export const NOTIFICATION_TYPES: NotificationType[] = ['conversation.assigned', 'message.received', 'mention'];

/** A row of `notifications`: something a user should look at; always the user's own (another user's is a 404). */
export interface NotificationRow {
  id: string;
  user_id: string;
  type: NotificationType;
  conversation_id: string | null;
  text: string;
  created_at: Date;
  read_at: Date | null;
  /**
   * When it is to be e-mailed if still unread (EMAIL_NOTIFICATION_DELAY after it was created): at
   * once to a user who chose `immediate`, in the next digest to one who chose `digest`. Cleared
   * once e-mailed, passed over (`off`) or read.
   */
  email_due_at: Date | null;
}

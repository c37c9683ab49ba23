/** Why an e-mail is sent; kept on its row for the record. */
export type EmailKind = 'invitation' | 'password_reset' | 'notification' | 'notification_digest' | 'account_locked';

export type OutboundEmailStatus = 'pending' | 'sent' | 'failed';

/**
 * A row of `outbound_emails`: one e-mail as recorded work, written in the transaction that causes
 * it. `content` is the subject, text and HTML as JSON, sealed with the SecretBox (an invitation's
 * or a reset's link is a credential), and dropped once the e-mail is sent or failed.
 */
export interface OutboundEmailRow {
  id: string;
  user_id: string | null;
  kind: EmailKind;
  to_address: string;
  content: string | null;
  status: OutboundEmailStatus;
  attempts: number;
  next_attempt_at: Date | null;
  claimed_by: string | null;
  provider_message_id: string | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

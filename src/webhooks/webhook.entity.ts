/** A row of `webhooks`: a receiver registered for some event types (or `*`). */
export interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  /** Signs deliveries; stored encrypted (SecretBox), never returned by the API. */
  secret: string;
  active: boolean;
  /** Why the service disabled it (a 410 from the receiver); null when enabled or disabled by hand. */
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** A row of `webhook_deliveries` (one event for one registration, and its attempts so far), with its event's type. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_response: string | null;
  last_error: string | null;
  /** When the next attempt is due; null once the delivery is finished. */
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

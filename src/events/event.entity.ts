import type { EventType } from './event-types';

/** A row of `events`, the outbox: a domain change, recorded in the transaction that made it. */
export interface EventRow {
  id: string;
  type: EventType;
  data: Record<string, unknown>;
  created_at: Date;
  /** The one user (uuid) whose stream may carry it; null for everyone's stream and the webhooks. */
  audience: string | null;
  /** The inbox (uuid) of the conversation it is about: only its members' streams carry it (and admins'). Null: about no conversation. */
  inbox_id: string | null;
  /** Recorded by an automation rule's actions: no rule runs on it, so rules cannot set each other off. */
  automated: boolean;
}

/** The seed's event envelope, as webhook deliveries, the live stream and its replay carry it. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
}

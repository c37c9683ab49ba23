/** Every event type the service emits (see the API contract). */
export const EVENT_TYPES = [
  'message.received',
  'message.sent',
  'message.status',
  'message.media',
  'conversation.created',
  'conversation.assigned',
  'conversation.closed',
  'conversation.reopened',
  'contact.created',
  'contact.updated',
  'contact.deleted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Every event type the service emits (see the API contract). */
export const EVENT_TYPES = [
  'message.received',
  'message.sent',
  'message.status',
  'message.reaction',
  'conversation.created',
  'conversation.assigned',
  'conversation.closed',
  'conversation.reopened',
  'conversation.updated',
  'note.created',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.merged',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

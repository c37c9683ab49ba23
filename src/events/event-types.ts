/** Every event type the service emits (see the API contract). */
export const EVENT_TYPES = [
  'message.received',
  'message.sent',
  'message.status',
  'message.reaction',
  'message.media',
  'conversation.created',
  'conversation.assigned',
  'conversation.closed',
  'conversation.reopened',
  'conversation.updated',
  'conversation.rated',
  'note.created',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.merged',
  'notification.created',
  'automation.triggered',
  'campaign.created',
  'campaign.updated',
  'campaign.deleted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Events for one user only (recorded with `EventsService.recordForUser`): that user's event
 * stream carries them, no other user's, and webhooks never do (a registration cannot subscribe).
 */
export const USER_EVENT_TYPES: readonly EventType[] = ['notification.created'];

/**
 * Events only admins' streams carry (campaigns are admins' work: their audience and template are
 * not for every agent of the inbox); webhooks carry them as any other.
 */
export const ADMIN_EVENT_TYPES: readonly EventType[] = ['campaign.created', 'campaign.updated', 'campaign.deleted'];

/** What a webhook registration may subscribe to: every type but the user-only ones. */
export const WEBHOOK_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) => !USER_EVENT_TYPES.includes(type));

import { AUTOMATION_EVENT_SCHEMAS } from './automation/automation.events';
import { CAMPAIGN_EVENT_SCHEMAS } from './campaigns/campaign.events';
import { CONTACT_EVENT_SCHEMAS } from './contacts/contact.events';
import { CONVERSATION_EVENT_SCHEMAS } from './conversations/conversation.events';
import type { EventPayloadSchemas } from './events/event-payloads';
import { NOTIFICATION_EVENT_SCHEMAS } from './notifications/notification.events';

/**
 * The documented payload class of every event type, gathered from the modules that own them. The
 * type check makes it complete and right: a type of EVENT_TYPES without a payload, or a class
 * that is not its type's payload, does not compile. The OpenAPI document lists them (and which
 * type carries which, `x-event-payloads`), and the console's event types are generated from it.
 */
export const EVENT_PAYLOAD_SCHEMAS = {
  ...CONVERSATION_EVENT_SCHEMAS,
  ...CONTACT_EVENT_SCHEMAS,
  ...NOTIFICATION_EVENT_SCHEMAS,
  ...AUTOMATION_EVENT_SCHEMAS,
  ...CAMPAIGN_EVENT_SCHEMAS,
} satisfies EventPayloadSchemas;

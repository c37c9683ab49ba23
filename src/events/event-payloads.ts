import type { EventType } from './event-types';

/**
 * The payload (`data`) of every event type, one type each. The module that owns a type declares
 * its payload here by declaration merging, beside the class that documents it and the builder
 * that makes it (conversations/conversation.events.ts, contacts/contact.events.ts,
 * notifications/notification.events.ts):
 *
 *   declare module '../events/event-payloads' {
 *     interface EventPayloads { 'contact.created': ContactEvent }
 *   }
 *
 * EventsService.record takes only a type that has one and only its payload, so an event type
 * without a payload type cannot be recorded (test/unit/event-payloads.spec.ts shows it).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the owning modules (declaration merging)
export interface EventPayloads {}

/** An event type whose payload is declared. */
export type TypedEventType = EventType & keyof EventPayloads;

/** The class that documents each type's payload in the OpenAPI document, whose instances are that payload. */
export type EventPayloadSchemas = { [Type in EventType]: new () => Type extends keyof EventPayloads ? EventPayloads[Type] : never };

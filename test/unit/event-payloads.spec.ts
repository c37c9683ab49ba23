import { join, relative } from 'node:path';
import { compileCases } from '../support/compile-cases';

/**
 * Every event type has one payload type, and the compiler holds every recording to it: these
 * cases are compiled against the service's own sources and each one's errors read.
 */
const ROOT = join(__dirname, '..', '..');

const CASES = {
  known: `await events.record(db, 'contact.created', ContactEvent.of(contact));`,
  unknownType: `await events.record(db, 'campaign.sent', { campaign: 'cmp_1' });`,
  anotherTypesPayload: `await events.record(db, 'message.received', ContactEvent.of(contact));`,
  looseRecord: `await events.record(db, 'contact.created', { contact, extra: 1 } as Record<string, unknown>);`,
  incompleteSchemas: `export const schemas = { ...CONTACT_EVENT_SCHEMAS } satisfies EventPayloadSchemas;`,
  completeSchemas: `export const schemas = EVENT_PAYLOAD_SCHEMAS satisfies EventPayloadSchemas;`,
};

function fixture(directory: string, body: string): string {
  const src = (path: string) => relative(directory, join(ROOT, 'src', path)).replace(/\\/g, '/');
  return `
import type { Db } from '${src('database/sql')}';
import type { EventsService } from '${src('events/events.service')}';
import type { EventPayloadSchemas } from '${src('events/event-payloads')}';
import type { ContactResponse } from '${src('contacts/contact.dto')}';
import { ContactEvent, CONTACT_EVENT_SCHEMAS } from '${src('contacts/contact.events')}';
import { EVENT_PAYLOAD_SCHEMAS } from '${src('event-payload-schemas')}';
export async function attempt(events: EventsService, db: Db, contact: ContactResponse): Promise<void> {
  void [CONTACT_EVENT_SCHEMAS, EVENT_PAYLOAD_SCHEMAS, {} as EventPayloadSchemas | undefined];
  ${body.startsWith('export') ? '' : body}
}
${body.startsWith('export') ? body : ''}
`;
}

describe('event payload types', () => {
  let errors: Record<keyof typeof CASES, string[]>;

  beforeAll(() => {
    errors = compileCases(CASES, fixture);
  }, 120_000);

  it('compiles the recording of a known type with its payload', () => {
    expect(errors.known).toEqual([]);
  });

  it('refuses to compile the recording of a type that has no payload type', () => {
    expect(errors.unknownType.join('\n')).toMatch(/Argument of type '"campaign.sent"' is not assignable/);
  });

  it("refuses to compile the recording of a type with another type's payload", () => {
    expect(errors.anotherTypesPayload.join('\n')).toMatch(/'ContactEvent' is not assignable to parameter of type 'MessageAddedEvent'/);
  });

  it('refuses to compile the recording of an untyped record as a payload', () => {
    expect(errors.looseRecord.join('\n')).toMatch(/'Record<string, unknown>' is not assignable to parameter of type 'ContactEvent'/);
  });

  it('refuses to compile a list of payload schemas that leaves a type out, and compiles the complete one', () => {
    expect(errors.incompleteSchemas.join('\n')).toMatch(
      /does not satisfy the expected type 'EventPayloadSchemas'[\s\S]*"message.received"/,
    );
    expect(errors.completeSchemas).toEqual([]);
  });
});

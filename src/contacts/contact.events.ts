import { ApiProperty } from '@nestjs/swagger';
import { toPublicId } from '../common/ids';
import { ContactResponse } from './contact.dto';

/*
 * The payloads of the events this module owns, one class each (documented in the OpenAPI
 * document, whose generated types the console reads), built only here.
 */

/** `contact.created`, `contact.updated`, `contact.deleted`: the contact (as it was, for a deletion). */
export class ContactEvent {
  @ApiProperty({ type: ContactResponse })
  contact!: ContactResponse;

  static of(contact: ContactResponse): ContactEvent {
    return { contact };
  }
}

/** `contact.merged`: the contact that stays, as merged, and the id of the one merged into it (deleted). */
export class ContactMergedEvent {
  @ApiProperty({ type: ContactResponse })
  contact!: ContactResponse;

  @ApiProperty({ example: 'ct_01a2047c8e2078c99d14947d2651598e' })
  merged_id!: string;

  static of(contact: ContactResponse, mergedId: string): ContactMergedEvent {
    return { contact, merged_id: toPublicId('ct', mergedId) };
  }
}

declare module '../events/event-payloads' {
  interface EventPayloads {
    'contact.created': ContactEvent;
    'contact.updated': ContactEvent;
    'contact.deleted': ContactEvent;
    'contact.merged': ContactMergedEvent;
  }
}

/** The documented class of each payload above. */
export const CONTACT_EVENT_SCHEMAS = {
  'contact.created': ContactEvent,
  'contact.updated': ContactEvent,
  'contact.deleted': ContactEvent,
  'contact.merged': ContactMergedEvent,
};

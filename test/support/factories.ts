import { randomBytes } from 'node:crypto';
import type { ContactRow } from '../../src/contacts/contact.entity';
import { ContactRepository } from '../../src/contacts/contact.repository';
import type { ConversationRow } from '../../src/conversations/conversation.entity';
import { ConversationRepository } from '../../src/conversations/conversation.repository';
import { newUuid } from '../../src/common/ids';
import { Database } from '../../src/database/database';
import { DEFAULT_INBOX_ID } from '../../src/common/default-inbox';
import type { TestApp } from './test-app';

/**
 * Test data written through the repositories, for tests whose subject is not how the data came
 * to be (the HTTP path has its own tests). Each answers the stored row.
 */
export async function createContact(t: TestApp, fields: Partial<ContactRow> = {}): Promise<ContactRow> {
  const now = new Date();
  const contact: ContactRow = {
    id: newUuid(now.getTime()),
    phone: `+1631555${String(1000 + (randomBytes(2).readUInt16BE() % 9000))}`,
    wa_user_id: null,
    username: null,
    name: null,
    email: null,
    tags: [],
    blocked_at: null,
    opted_out_at: null,
    created_at: now,
    updated_at: now,
    ...fields,
    attributes: fields.attributes ?? {},
  };
  await t.app.get(ContactRepository).insert(t.app.get(Database).db, contact);
  return contact;
}

/** A conversation of `contactId` (a new contact's when not given). */
export async function createConversation(t: TestApp, fields: Partial<ConversationRow> = {}): Promise<ConversationRow> {
  const now = new Date();
  const conversation: ConversationRow = {
    id: newUuid(now.getTime()),
    contact_id: fields.contact_id ?? (await createContact(t)).id,
    inbox_id: DEFAULT_INBOX_ID,
    status: 'open',
    assigned_to: null,
    last_message_at: now,
    last_inbound_at: null,
    snoozed_until: null,
    last_received_at: null,
    last_received_id: null,
    team_id: null,
    waiting_since: null,
    csat_rating: null,
    csat_comment: null,
    csat_rated_at: null,
    csat_message_id: null,
    csat_comment_until: null,
    last_campaign_at: null,
    created_at: now,
    updated_at: now,
    ...fields,
  };
  if (!(await t.app.get(ConversationRepository).insertUnlessContactHasOne(t.app.get(Database).db, conversation))) {
    throw new Error(`createConversation: contact ${conversation.contact_id} has a conversation already`);
  }
  return conversation;
}

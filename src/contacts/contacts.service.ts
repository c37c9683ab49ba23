import { AuditLogService } from '../audit/audit-log.service';
import {
  BadRequestException,
  ForbiddenException,
  ConflictException,
  Injectable,
  Logger,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { newUuid, toPublicId } from '../common/ids';
import { mapPage, Page } from '../common/pagination';
import { toE164 } from '../common/phone';
import { Database } from '../database/database';
import { isForeignKeyViolation, isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import { type AttributeValue, MAX_ATTRIBUTES, sameAttributes, sortedAttributes } from './contact-attributes';
import type { UserRow } from '../users/user.entity';
import { contactFilterOf, ContactResponse, CreateContactDto, ListContactsQuery, MAX_TAGS, UpdateContactDto } from './contact.dto';
import type { ContactRow } from './contact.entity';
import { ContactRepository } from './contact.repository';
import { ContactEvent, ContactMergedEvent } from './contact.events';
import { describeCustomer, type ChannelCustomer } from './channel-customer';

const DUPLICATE_PHONE = 'A contact with this phone already exists';
const DUPLICATE_USER_ID = 'A contact with this wa_user_id already exists';
/** The channel blocks a number: a blocked contact keeps it, and stays, until it is unblocked (the block could not be lifted otherwise). */
const BLOCKED_NUMBER = 'The customer is blocked: unblock them first, so that the channel lifts the block of this number';
const HAS_CONVERSATION = 'This contact has a conversation and cannot be deleted';
const MAX_NAME_LENGTH = 200;

type ContactFields = Pick<ContactRow, 'phone' | 'wa_user_id' | 'name' | 'email' | 'tags' | 'attributes'>;

/** What a number or user id change did: moved the contact, made one (none had the old value), or left both (another has the new). */
export interface IdentityChange {
  contact: ContactRow;
  outcome: 'moved' | 'created' | 'taken';
}

/** Two contacts locked for a merge, and the contact they make together. */
export interface ContactMerge {
  into: ContactRow;
  from: ContactRow;
  merged: ContactRow;
}

/** The name a channel's customer gave themselves, as a contact keeps it. */
function nameOf(customer: ChannelCustomer): string | null {
  return customer.profileName?.trim().slice(0, MAX_NAME_LENGTH) || null;
}

@Injectable()
export class ContactsService {
  private readonly logger = new Logger(ContactsService.name);

  constructor(
    private readonly database: Database,
    private readonly contacts: ContactRepository,
    private readonly events: EventsService,
    private readonly audit: AuditLogService,
  ) {}

  async list(query: ListContactsQuery, caller: UserRow): Promise<Page<ContactResponse>> {
    return mapPage(await this.contacts.list(this.database.db, contactFilterOf(query, caller), query), ContactResponse.of);
  }

  async get(id: string): Promise<ContactResponse> {
    const contact = await this.contacts.find(this.database.db, id);
    if (!contact) throw new NotFoundException('Contact not found');
    return ContactResponse.of(contact);
  }

  /** The contact locked until the caller's transaction ends (a block and its channel call are one at a time); a 404 when unknown. */
  async lockForBlocking(db: Db, id: string): Promise<ContactResponse> {
    return ContactResponse.of(await this.lock(db, id));
  }

  /**
   * Marks the customer blocked (when, and on which inbox's number) or not (null) in the caller's
   * transaction, recording contact.updated; answers the contact as it now is.
   */
  async setBlocked(db: Db, id: string, block: { at: Date; inboxId: string } | null): Promise<ContactResponse> {
    const contact = await this.contacts.setBlocked(db, id, block, new Date());
    if (!contact) throw new NotFoundException('Contact not found');
    return this.record(db, 'contact.updated', contact);
  }

  /** The inbox whose number the customer is blocked on; null when not blocked. */
  blockedInboxOf(db: Db, id: string): Promise<string | null> {
    return this.contacts.blockedInboxOf(db, id);
  }

  /** Whether the customer is blocked: the channel would refuse anything sent to them. */
  async isBlocked(db: Db, id: string): Promise<boolean> {
    return Boolean((await this.contacts.find(db, id))?.blocked_at);
  }

  /** A 422 when the customer is blocked. */
  async assertNotBlocked(db: Db, id: string): Promise<void> {
    if (await this.isBlocked(db, id)) throw new UnprocessableEntityException('The customer is blocked: unblock them to write to them');
  }

  async create(dto: CreateContactDto): Promise<ContactResponse> {
    try {
      return await this.database.transaction(async (db) => {
        const now = new Date();
        const contact: ContactRow = {
          id: newUuid(now.getTime()),
          phone: dto.phone ?? null,
          wa_user_id: dto.wa_user_id ?? null,
          username: null,
          name: dto.name ?? null,
          email: dto.email ?? null,
          tags: dto.tags ?? [],
          attributes: dto.attributes ?? {},
          blocked_at: null,
          opted_out_at: null,
          created_at: now,
          updated_at: now,
        };
        await this.contacts.insert(db, contact);
        return this.record(db, 'contact.created', contact);
      });
    } catch (error) {
      throw duplicateOf(error);
    }
  }

  /** Changes the fields present in `dto`; a change that leaves the contact as it was writes nothing. */
  async update(id: string, dto: UpdateContactDto, caller: UserRow): Promise<ContactResponse> {
    if (dto.opted_out !== undefined && caller.role !== 'admin')
      throw new ForbiddenException('Only admins opt a contact in or out of campaigns');
    const changes: Partial<ContactFields> = {};
    if (dto.phone !== undefined) changes.phone = dto.phone;
    if (dto.wa_user_id !== undefined) changes.wa_user_id = dto.wa_user_id;
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.email !== undefined) changes.email = dto.email;
    if (dto.tags !== undefined) changes.tags = dto.tags;
    if (dto.attributes !== undefined) changes.attributes = dto.attributes;
    if (Object.keys(changes).length === 0 && dto.opted_out === undefined)
      throw new BadRequestException('Body must set at least one of phone, wa_user_id, name, email, tags, attributes, opted_out');
    try {
      return await this.database.transaction(async (db) => {
        const contact = await this.lock(db, id);
        const movesIdentity =
          (changes.phone !== undefined && changes.phone !== contact.phone) ||
          (changes.wa_user_id !== undefined && changes.wa_user_id !== contact.wa_user_id);
        if (contact.blocked_at && movesIdentity) throw new ConflictException(BLOCKED_NUMBER);
        const changed = (Object.keys(changes) as (keyof ContactFields)[]).filter((field) =>
          field === 'attributes'
            ? !sameAttributes(changes.attributes!, contact.attributes)
            : JSON.stringify(changes[field]) !== JSON.stringify(contact[field]),
        );
        const optIn = dto.opted_out !== undefined && dto.opted_out !== (contact.opted_out_at !== null);
        if (changed.length === 0 && !optIn) return ContactResponse.of(contact);
        const now = new Date();
        Object.assign(contact, changes, { updated_at: now });
        if (changed.length > 0) await this.contacts.update(db, contact);
        if (optIn) Object.assign(contact, await this.contacts.setOptedOut(db, id, dto.opted_out ? now : null, now));
        return this.record(db, 'contact.updated', contact);
      });
    } catch (error) {
      throw duplicateOf(error);
    }
  }

  /**
   * Deletes a contact that no conversation points at. The foreign key from conversations is the
   * check, so it is exact under concurrency: a conversation inserted for this contact meanwhile
   * waits for the row lock and then fails, one inserted before makes the delete fail.
   */
  async remove(id: string): Promise<void> {
    try {
      await this.database.transaction(async (db) => {
        const contact = await this.lock(db, id);
        if (contact.blocked_at) throw new ConflictException(BLOCKED_NUMBER);
        await this.contacts.delete(db, id);
        await this.record(db, 'contact.deleted', contact);
        await this.audit.record(db, 'contact.deleted', { target: toPublicId('ct', id) });
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new ConflictException(HAS_CONVERSATION);
      throw error;
    }
  }

  /**
   * The contact of a customer who wrote in, created when new, inside the caller's transaction (the
   * inbound channel webhook): found by the channel's user id, then by phone. What the message
   * brings is kept: a phone-only contact gains its user id (never a second contact for one
   * customer), an id-only contact gains the phone when no other contact has it, the username follows
   * the channel's, a contact without a name takes the profile name (a named one keeps its name).
   * Safe under concurrency: of two transactions racing for one new customer, the second waits on the
   * first's insert and then finds its row, locked for the rest of the caller's transaction.
   */
  async findOrCreateForCustomer(db: Db, customer: ChannelCustomer): Promise<{ contact: ContactRow; created: boolean }> {
    const phone = customer.phone === null ? null : toE164(customer.phone);
    if (phone === null && customer.userId === null)
      throw new Error(`findOrCreateForCustomer: neither a phone nor a user id in ${JSON.stringify(customer)}`);
    const name = nameOf(customer);
    // Locked first: a customer who writes again (nearly every message) costs one or two statements.
    // An insert that finds the phone or id taken lost a race with another first message, and a
    // concurrent delete can remove the row between the two: both go round again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const contact =
        (customer.userId === null ? null : await this.contacts.lockByUserId(db, customer.userId)) ??
        (phone === null ? null : await this.contacts.lockByPhone(db, phone));
      if (contact) return { contact: await this.keepWhatTheChannelSays(db, contact, { ...customer, phone }, name), created: false };
      const now = new Date();
      const fresh: ContactRow = {
        id: newUuid(now.getTime()),
        phone,
        wa_user_id: customer.userId,
        username: customer.username,
        name,
        email: null,
        tags: [],
        attributes: {},
        blocked_at: null,
        opted_out_at: null,
        created_at: now,
        updated_at: now,
      };
      if (await this.contacts.insertUnlessTaken(db, fresh)) {
        await this.record(db, 'contact.created', fresh);
        return { contact: fresh, created: true };
      }
    }
    throw new Error(`findOrCreateForCustomer: the contact of ${describeCustomer(customer)} kept disappearing`);
  }

  /**
   * The customer's contact, found and locked with their conversation by the caller: what the message
   * says of them kept, as findOrCreateForCustomer does (the webhook's parser wrote the phone in E.164).
   */
  keepFromChannel(db: Db, contact: ContactRow, customer: ChannelCustomer): Promise<ContactRow> {
    return this.keepWhatTheChannelSays(db, contact, customer, nameOf(customer));
  }

  /** Writes what a message says of its customer that the locked contact lacks or had otherwise; records contact.updated when it changed. */
  private async keepWhatTheChannelSays(db: Db, contact: ContactRow, customer: ChannelCustomer, name: string | null): Promise<ContactRow> {
    const changes: Partial<ContactRow> = {};
    if (contact.name === null && name !== null) changes.name = name;
    if (customer.username !== null && customer.username !== contact.username) changes.username = customer.username;
    // Found by phone with another id: the id changed (a new number or a new id the channel did not announce to us); the newest wins.
    if (customer.userId !== null && customer.userId !== contact.wa_user_id) changes.wa_user_id = customer.userId;
    if (customer.phone !== null && contact.phone === null) {
      const holder = await this.contacts.lockByPhone(db, customer.phone);
      if (holder === null) changes.phone = customer.phone;
      // Two contacts of one customer (an import or an agent made the phone's): merging them cannot be undone, so an agent decides.
      else if (holder.id !== contact.id)
        this.logger.warn(
          `Contact ${toPublicId('ct', contact.id)} (user id ${contact.wa_user_id}) wrote from ${customer.phone}, which contact ${toPublicId('ct', holder.id)} has: both kept (merge them if they are one person)`,
        );
    }
    if (Object.keys(changes).length === 0) return contact;
    Object.assign(contact, changes, { updated_at: new Date() });
    await this.contacts.update(db, contact);
    await this.record(db, 'contact.updated', contact);
    return contact;
  }

  /**
   * The customer's business-scoped user id changed (the channel's `user_changed_user_id`), inside the
   * caller's transaction, as a number change is (see `changeNumber`): the contact of the old id takes
   * the new one; without one, the customer's is found or created; another contact with the new id
   * leaves both as they are (`taken`).
   */
  async changeUserId(db: Db, previousUserId: string, customer: ChannelCustomer): Promise<IdentityChange> {
    return this.moveIdentity(db, await this.contacts.lockByUserId(db, previousUserId), 'wa_user_id', customer.userId, customer);
  }

  /**
   * The customer changed their WhatsApp number (the channel's `user_changed_number`), inside the
   * caller's transaction. The contact of the old number takes the new one (`moved`, recording
   * contact.updated), so its conversation stays its one thread. Without a contact of the old
   * number, the new number's is found or created (`created`). When another contact has the new
   * number already, both stay as they are (`taken`): numbers are recycled, so it may be
   * someone else, and merging two people's threads cannot be undone; an agent decides.
   */
  async changeNumber(db: Db, oldPhone: string, newPhone: string, profileName: string | null): Promise<IdentityChange> {
    const customer = { phone: newPhone, userId: null, username: null, profileName };
    return this.moveIdentity(db, await this.contacts.lockByPhone(db, oldPhone), 'phone', newPhone, customer);
  }

  /** `contact` (found, locked, by its old phone or user id) takes the new value of `field`; see changeNumber. */
  private async moveIdentity(
    db: Db,
    contact: ContactRow | null,
    field: 'phone' | 'wa_user_id',
    value: string | null,
    customer: ChannelCustomer,
  ): Promise<IdentityChange> {
    if (!contact) return { contact: (await this.findOrCreateForCustomer(db, customer)).contact, outcome: 'created' };
    if (value === null || value === contact[field]) return { contact, outcome: 'moved' };
    const holder = field === 'phone' ? await this.contacts.lockByPhone(db, value) : await this.contacts.lockByUserId(db, value);
    if (holder) return { contact, outcome: 'taken' };
    Object.assign(contact, { [field]: value, updated_at: new Date() });
    await this.contacts.update(db, contact);
    await this.record(db, 'contact.updated', contact);
    return { contact, outcome: 'moved' };
  }

  /**
   * The first step of merging contact `fromId` into contact `intoId`, in the caller's transaction:
   * both locked (in phone order, like every statement that locks several contacts), and this one
   * written as the contact they make together: its phone, user id, username, name and e-mail, the
   * other's filling those it lacks (a phone or user id taken from the other once it is deleted), the tags of both (its own first), the attributes of both (its value where both
   * have a key). 404 when `intoId` is unknown, 422 when `fromId` is unknown or the same contact, or
   * when the merged contact would hold more tags or attributes than a contact may.
   */
  async mergeFields(db: Db, intoId: string, fromId: string): Promise<ContactMerge> {
    if (intoId === fromId) throw new UnprocessableEntityException('A contact cannot be merged into itself');
    const locked = await this.contacts.lockMany(db, { ids: [intoId, fromId] });
    const into = locked.find((contact) => contact.id === intoId);
    if (!into) throw new NotFoundException('Contact not found');
    const from = locked.find((contact) => contact.id === fromId);
    if (!from) throw new UnprocessableEntityException('from does not name a contact');
    if (from.blocked_at) throw new ConflictException(`from is blocked: ${BLOCKED_NUMBER}`);
    const tags = [...new Set([...into.tags, ...from.tags])];
    if (tags.length > MAX_TAGS)
      throw new UnprocessableEntityException(`The merged contact would have ${tags.length} tags; a contact has at most ${MAX_TAGS}`);
    const attributes = { ...from.attributes, ...into.attributes };
    const keys = Object.keys(attributes).length;
    if (keys > MAX_ATTRIBUTES)
      throw new UnprocessableEntityException(`The merged contact would have ${keys} attributes; a contact has at most ${MAX_ATTRIBUTES}`);
    const merged: ContactRow = {
      ...into,
      phone: into.phone ?? from.phone,
      wa_user_id: into.wa_user_id ?? from.wa_user_id,
      username: into.username ?? from.username,
      name: into.name ?? from.name,
      email: into.email ?? from.email,
      tags,
      attributes,
      // Either one's STOP holds for the person they both are.
      opted_out_at: into.opted_out_at ?? from.opted_out_at,
      updated_at: new Date(),
    };
    // The other contact holds its phone and user id until completeMerge deletes it: they are unique.
    await this.contacts.update(db, { ...merged, phone: into.phone, wa_user_id: into.wa_user_id });
    if (merged.opted_out_at !== into.opted_out_at) await this.contacts.setOptedOut(db, into.id, merged.opted_out_at, merged.updated_at);
    return { into, from, merged };
  }

  /**
   * The last step of a merge, once the other contact's conversation has moved: the other contact
   * deleted (the foreign key from conversations makes sure nothing was left behind) and
   * `contact.merged` recorded.
   */
  async completeMerge(db: Db, merge: ContactMerge): Promise<ContactResponse> {
    await this.contacts.delete(db, merge.from.id);
    if (merge.merged.phone !== merge.into.phone || merge.merged.wa_user_id !== merge.into.wa_user_id)
      await this.contacts.update(db, merge.merged);
    const contact = ContactResponse.of(merge.merged);
    await this.events.record(db, 'contact.merged', ContactMergedEvent.of(contact, merge.from.id));
    return contact;
  }

  /** The contact as it is (its tags and attributes, which automation's conditions read), or null. */
  find(db: Db, id: string): Promise<ContactRow | null> {
    return this.contacts.find(db, id);
  }

  /**
   * The customer's own opt-out of campaigns (or back in), in the caller's transaction, with
   * `contact.updated`; answers whether it changed anything (a second STOP does not).
   */
  async setOptedOut(db: Db, id: string, optedOut: boolean): Promise<boolean> {
    const contact = await this.lock(db, id);
    if ((contact.opted_out_at !== null) === optedOut) return false;
    const now = new Date();
    await this.record(db, 'contact.updated', (await this.contacts.setOptedOut(db, id, optedOut ? now : null, now))!);
    return true;
  }

  /** Holds the contact until the caller's transaction ends (a 404 when it is gone): automation takes it before its conversation, as the ingest does. */
  async hold(db: Db, id: string): Promise<void> {
    await this.lock(db, id);
  }

  /**
   * Sets one attribute in the caller's transaction (automation), with `contact.updated` when it
   * changed; answers why not when the contact has the most attributes already.
   */
  async setAttribute(db: Db, id: string, key: string, value: AttributeValue): Promise<'changed' | 'unchanged' | string> {
    const contact = await this.lock(db, id);
    const has = Object.hasOwn(contact.attributes, key);
    if (has && contact.attributes[key] === value) return 'unchanged';
    if (!has && Object.keys(contact.attributes).length >= MAX_ATTRIBUTES) return `the contact has ${MAX_ATTRIBUTES} attributes already`;
    Object.assign(contact, { attributes: sortedAttributes({ ...contact.attributes, [key]: value }), updated_at: new Date() });
    await this.contacts.update(db, contact);
    await this.record(db, 'contact.updated', contact);
    return 'changed';
  }

  private async lock(db: Db, id: string): Promise<ContactRow> {
    const contact = await this.contacts.find(db, id, true);
    if (!contact) throw new NotFoundException('Contact not found');
    return contact;
  }

  private async record(
    db: Db,
    type: 'contact.created' | 'contact.updated' | 'contact.deleted',
    contact: ContactRow,
  ): Promise<ContactResponse> {
    const response = ContactResponse.of(contact);
    await this.events.record(db, type, ContactEvent.of(response));
    return response;
  }
}

/** A 409 naming the taken phone or user id; any other error as it was. */
function duplicateOf(error: unknown): unknown {
  if (isUniqueViolation(error, 'contacts_phone_key')) return new ConflictException(DUPLICATE_PHONE);
  if (isUniqueViolation(error, 'contacts_wa_user_id_key')) return new ConflictException(DUPLICATE_USER_ID);
  return error;
}

import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError, Repository, SelectQueryBuilder } from 'typeorm';
import { newUuid } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { toE164 } from '../common/phone';
import { containsPattern } from '../common/search';
import { isUniqueViolation } from '../database/errors';
import { EventsService } from '../events/events.service';
import type { EventType } from '../events/event-types';
import { Contact, contactSearchText } from './contact.entity';
import { ContactResponse, CreateContactDto, ListContactsQuery, UpdateContactDto } from './contact.dto';

const DUPLICATE_PHONE = 'A contact with this phone already exists';
const HAS_CONVERSATION = 'This contact has a conversation and cannot be deleted';
const MAX_NAME_LENGTH = 200;

/**
 * The text `q` searches: exactly the expression of the trigram index `contacts_search_idx`
 * (see the Inbox migration), so an ILIKE on it is served by that index.
 */

/** A conversation still points at the contact (the RESTRICT foreign key, SQLSTATE 23503). */
function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23503';
}

@Injectable()
export class ContactsService {
  constructor(
    @InjectRepository(Contact) private readonly contacts: Repository<Contact>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventsService,
  ) {}

  /**
   * The one query behind the list: newest first on `contacts_created_at_id_idx`, `q` on
   * `contacts_search_idx`, `tag` on `contacts_tags_idx`. Public so the tests can EXPLAIN it.
   */
  listQuery(query: ListContactsQuery, manager: EntityManager = this.dataSource.manager): SelectQueryBuilder<Contact> {
    const builder = manager
      .createQueryBuilder(Contact, 'c')
      .orderBy('c.created_at', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .limit(query.limit + 1);
    if (query.q) builder.andWhere(`${contactSearchText('c')} ILIKE :pattern`, { pattern: containsPattern(query.q) });
    if (query.tag) builder.andWhere('c.tags @> ARRAY[:tag]::text[]', { tag: query.tag });
    if (query.cursor) {
      const [createdAt, id] = decodeCursor(query.cursor, ['timestamp', 'uuid']);
      builder.andWhere('(c.created_at, c.id) < (:createdAt, :id)', { createdAt, id });
    }
    return builder;
  }

  async list(query: ListContactsQuery): Promise<Page<ContactResponse>> {
    const rows = await this.listQuery(query).getMany();
    return toPage(rows, query.limit, (c) => [c.createdAt.toISOString(), c.id], ContactResponse.of);
  }

  async get(id: string): Promise<Contact> {
    const contact = await this.contacts.findOneBy({ id });
    if (!contact) throw new NotFoundException('Contact not found');
    return contact;
  }

  async create(dto: CreateContactDto): Promise<Contact> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const now = new Date();
        const contact = manager.create(Contact, {
          id: newUuid(now.getTime()),
          phone: dto.phone,
          name: dto.name ?? null,
          email: dto.email ?? null,
          tags: dto.tags ?? [],
          createdAt: now,
          updatedAt: now,
        });
        await manager.insert(Contact, contact);
        await this.record(manager, 'contact.created', contact);
        return contact;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'contacts_phone_key')) throw new ConflictException(DUPLICATE_PHONE);
      throw error;
    }
  }

  /** Changes the fields present in `dto`; a change that leaves the contact as it was writes nothing. */
  async update(id: string, dto: UpdateContactDto): Promise<Contact> {
    const changes: Partial<Pick<Contact, 'phone' | 'name' | 'email' | 'tags'>> = {};
    if (dto.phone !== undefined) changes.phone = dto.phone;
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.email !== undefined) changes.email = dto.email;
    if (dto.tags !== undefined) changes.tags = dto.tags;
    if (Object.keys(changes).length === 0) throw new BadRequestException('Body must set at least one of phone, name, email, tags');
    try {
      return await this.dataSource.transaction(async (manager) => {
        const contact = await this.lock(manager, id);
        const changed = (Object.keys(changes) as (keyof typeof changes)[]).filter((field) => JSON.stringify(changes[field]) !== JSON.stringify(contact[field]));
        if (changed.length === 0) return contact;
        Object.assign(contact, changes, { updatedAt: new Date() });
        await manager.update(Contact, { id }, { ...changes, updatedAt: contact.updatedAt });
        await this.record(manager, 'contact.updated', contact);
        return contact;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'contacts_phone_key')) throw new ConflictException(DUPLICATE_PHONE);
      throw error;
    }
  }

  /**
   * Deletes a contact that no conversation points at. The row lock makes the check exact: a
   * conversation inserted for this contact meanwhile waits for it (its foreign key takes a
   * share lock on the row) and then fails; one inserted before is seen by the check.
   */
  async remove(id: string): Promise<void> {
    try {
      await this.dataSource.transaction(async (manager) => {
        const contact = await this.lock(manager, id);
        const conversations: unknown[] = await manager.query('SELECT 1 FROM conversations WHERE contact_id = $1 LIMIT 1', [id]);
        if (conversations.length > 0) throw new ConflictException(HAS_CONVERSATION);
        await manager.delete(Contact, { id });
        await this.record(manager, 'contact.deleted', contact);
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new ConflictException(HAS_CONVERSATION);
      throw error;
    }
  }

  /**
   * The contact with this phone, created when new, inside the caller's transaction (the inbound
   * channel webhook). A known contact without a name takes `profileName`; a named one keeps its
   * name. Safe under concurrency: of two transactions racing for one new phone, the second waits
   * on the first's insert and then finds its row, locked for the rest of the caller's transaction.
   */
  async findOrCreateByPhone(manager: EntityManager, phone: string, profileName: string | null): Promise<{ contact: Contact; created: boolean }> {
    const e164 = toE164(phone);
    if (e164 === null) throw new Error(`findOrCreateByPhone: ${JSON.stringify(phone)} is not a phone number`);
    const name = profileName?.trim().slice(0, MAX_NAME_LENGTH) || null;
    // A concurrent delete can remove the row between the insert that conflicted and the lock.
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = new Date();
      const id = newUuid(now.getTime());
      const inserted: unknown[] = await manager.query(
        `INSERT INTO contacts (id, phone, name, email, tags, created_at, updated_at)
         VALUES ($1, $2, $3, NULL, '{}', $4, $4)
         ON CONFLICT (phone) DO NOTHING
         RETURNING id`,
        [id, e164, name, now],
      );
      if (inserted.length > 0) {
        const contact = manager.create(Contact, { id, phone: e164, name, email: null, tags: [], createdAt: now, updatedAt: now });
        await this.record(manager, 'contact.created', contact);
        return { contact, created: true };
      }
      const contact = await manager.findOne(Contact, { where: { phone: e164 }, lock: { mode: 'pessimistic_write' } });
      if (!contact) continue;
      if (contact.name === null && name !== null) {
        contact.name = name;
        contact.updatedAt = new Date();
        await manager.update(Contact, { id: contact.id }, { name, updatedAt: contact.updatedAt });
        await this.record(manager, 'contact.updated', contact);
      }
      return { contact, created: false };
    }
    throw new Error(`findOrCreateByPhone: the contact ${e164} kept disappearing`);
  }

  private async lock(manager: EntityManager, id: string): Promise<Contact> {
    const contact = await manager.findOne(Contact, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!contact) throw new NotFoundException('Contact not found');
    return contact;
  }

  private async record(manager: EntityManager, type: EventType, contact: Contact): Promise<void> {
    await this.events.record(manager, type, { contact: ContactResponse.of(contact) });
  }
}

import { randomInt } from 'node:crypto';
import type { ChannelCustomer } from '../../src/contacts/channel-customer';
import { ContactsService } from '../../src/contacts/contacts.service';
import { CreateContactDto } from '../../src/contacts/contact.dto';
import { toPublicId } from '../../src/common/ids';
import { Database } from '../../src/database/database';
import { query, sql } from '../../src/database/sql';
import { startServiceTier, ServiceTier } from '../support/service-tier';

/**
 * Which contact a customer's message belongs to (ContactsService.findOrCreateForCustomer, in the
 * inbound webhook's transaction): by the channel's user id, then by phone, keeping what the
 * message brings, created once under concurrency, nothing left when the caller rolls back. The
 * webhook's answers are the contract, in test/inbound.e2e.spec.ts and test/customer-user-ids.e2e.spec.ts.
 */
describe('the rules of matching a customer to a contact', () => {
  let tier: ServiceTier;
  let database: Database;
  let contacts: ContactsService;
  beforeAll(async () => {
    tier = await startServiceTier();
    database = tier.get(Database);
    contacts = tier.get(ContactsService);
  });
  afterAll(() => tier.close());

  const newPhone = () => `+1631${randomInt(2_000_000, 10_000_000)}`;
  const newUserId = () => `US.${randomInt(1e9, 1e10)}${randomInt(1e9, 1e10)}`;
  const customer = (fields: Partial<ChannelCustomer>): ChannelCustomer => ({
    phone: null,
    userId: null,
    username: null,
    profileName: null,
    ...fields,
  });
  const findOrCreate = (fields: Partial<ChannelCustomer>) =>
    database.transaction((db) => contacts.findOrCreateForCustomer(db, customer(fields)));
  const create = (fields: Partial<CreateContactDto>) => contacts.create(Object.assign(new CreateContactDto(), fields));
  const eventTypesOf = async (contactId: string) =>
    (
      await query<{ type: string }>(
        database.db,
        sql`SELECT type FROM events WHERE data->'contact'->>'id' = ${contactId} ORDER BY created_at, id`,
      )
    ).map((row) => row.type);
  const contactsWith = (column: 'phone' | 'wa_user_id', value: string) =>
    column === 'phone'
      ? query<{ id: string }>(database.db, sql`SELECT id FROM contacts WHERE phone = ${value}`)
      : query<{ id: string }>(database.db, sql`SELECT id FROM contacts WHERE wa_user_id = ${value}`);

  it('creates a contact for a new phone with the profile name, recording contact.created', async () => {
    const phone = newPhone();
    const { contact, created } = await findOrCreate({ phone, profileName: 'Pat Doe' });
    expect(created).toBe(true);
    expect(contact).toMatchObject({ phone, wa_user_id: null, name: 'Pat Doe', email: null, tags: [] });
    expect(await contacts.get(contact.id)).toMatchObject({ id: toPublicId('ct', contact.id), phone, name: 'Pat Doe' });
    expect(await eventTypesOf(toPublicId('ct', contact.id))).toEqual(['contact.created']);
  });

  it('returns the existing contact, whose name stays, recording nothing', async () => {
    const phone = newPhone();
    const existing = await create({ phone, name: 'Kim' });
    const { contact, created } = await findOrCreate({ phone, profileName: 'Kimberly from WhatsApp' });
    expect(created).toBe(false);
    expect(toPublicId('ct', contact.id)).toBe(existing.id);
    expect(contact.name).toBe('Kim');
    expect(await eventTypesOf(existing.id)).toEqual(['contact.created']);
  });

  it('gives an existing nameless contact the profile name, recording contact.updated', async () => {
    const phone = newPhone();
    const existing = await create({ phone });
    const { contact, created } = await findOrCreate({ phone, profileName: 'Lee' });
    expect(created).toBe(false);
    expect(contact.name).toBe('Lee');
    expect((await contacts.get(contact.id)).name).toBe('Lee');
    expect(await eventTypesOf(existing.id)).toEqual(['contact.created', 'contact.updated']);
  });

  it('finds a contact by user id before phone, and gives a phone contact the user id and username a message brings', async () => {
    const phone = newPhone();
    const userId = newUserId();
    const byPhone = await create({ phone, name: 'Phone First' });
    const linked = await findOrCreate({ phone, userId, username: 'phone.first' });
    expect(linked).toMatchObject({ created: false, contact: { phone, wa_user_id: userId, username: 'phone.first', name: 'Phone First' } });
    expect(toPublicId('ct', linked.contact.id)).toBe(byPhone.id);
    // By id alone now, the same contact.
    const again = await findOrCreate({ userId });
    expect(again.contact.id).toBe(linked.contact.id);
    expect(await eventTypesOf(byPhone.id)).toEqual(['contact.created', 'contact.updated']);
  });

  it('gives a contact known only by id a phone no other contact has, and leaves a phone another contact has where it is', async () => {
    const userId = newUserId();
    const { contact } = await findOrCreate({ userId, username: 'id.only' });
    expect(contact.phone).toBeNull();
    const taken = newPhone();
    await create({ phone: taken, name: 'Has It Already' });
    expect((await findOrCreate({ userId, phone: taken })).contact).toMatchObject({ id: contact.id, phone: null });
    const free = newPhone();
    expect((await findOrCreate({ userId, phone: free })).contact).toMatchObject({ id: contact.id, phone: free });
    expect(await contactsWith('phone', taken)).toHaveLength(1);
  });

  it('moves a contact found by phone to the new user id the message brings', async () => {
    const phone = newPhone();
    const [first, second] = [newUserId(), newUserId()];
    const { contact } = await findOrCreate({ phone, userId: first });
    expect((await findOrCreate({ phone, userId: second })).contact).toMatchObject({ id: contact.id, wa_user_id: second });
    expect(await contactsWith('wa_user_id', first)).toEqual([]);
  });

  it.each([
    ['phone', () => ({ phone: newPhone() })],
    ['user id', () => ({ userId: newUserId() })],
  ])('creates exactly one contact when concurrent calls race for one new %s', async (_identity, fields) => {
    const racer = fields() as Partial<ChannelCustomer>;
    const results = await Promise.all([1, 2, 3, 4].map(() => findOrCreate({ ...racer, profileName: 'Racer' })));
    expect(results.map((r) => r.created).sort()).toEqual([false, false, false, true]);
    expect(new Set(results.map((r) => r.contact.id)).size).toBe(1);
    const rows = racer.phone ? await contactsWith('phone', racer.phone) : await contactsWith('wa_user_id', racer.userId!);
    expect(rows).toHaveLength(1);
    expect(await eventTypesOf(toPublicId('ct', rows[0].id))).toEqual(['contact.created']);
  });

  it('creates nothing when the caller rolls back, and the contact once a caller commits', async () => {
    const phone = newPhone();
    await expect(
      database.transaction(async (db) => {
        await contacts.findOrCreateForCustomer(db, customer({ phone, profileName: 'Ghost' }));
        throw new Error('the caller failed later');
      }),
    ).rejects.toThrow('the caller failed later');
    expect(await contactsWith('phone', phone)).toEqual([]);
    expect(await query(database.db, sql`SELECT id FROM events WHERE data->'contact'->>'phone' = ${phone}`)).toEqual([]);
    await findOrCreate({ phone });
    expect(await contactsWith('phone', phone)).toHaveLength(1);
    expect(await query(database.db, sql`SELECT id FROM events WHERE data->'contact'->>'phone' = ${phone}`)).toHaveLength(1);
  });
});

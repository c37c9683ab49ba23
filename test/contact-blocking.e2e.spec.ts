import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

const dayAndAMinuteAgo = () => Math.floor(Date.now() / 1000) - 24 * 3600 - 60;

describe('blocking a customer on the WhatsApp channel', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({
      env: {
        ...graph.channelEnv,
      },
    });
    token = (await t.createUser({ role: 'agent' })).token;
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  /** The customer's contact, found by the number they wrote from. */
  const contactOf = async (phone: string) => {
    const page = await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token });
    return page.body.data[0];
  };
  const block = (contactId: string) => t.request('POST', `/api/v1/contacts/${contactId}/block`, { token });
  const unblock = (contactId: string) => t.request('POST', `/api/v1/contacts/${contactId}/unblock`, { token });
  const requestsFor = (phone: string) => graph.blockListRequests().filter((r) => JSON.stringify(r.body).includes(phone));

  it('blocks a customer who wrote today through the channel’s block list, shows blocked on the contact and records contact.updated', async () => {
    const { phone } = await customerWrites(t);
    const contact = await contactOf(phone);
    expect(contact.blocked).toBe(false);
    const answer = await block(contact.id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: contact.id, phone, blocked: true });
    expect(requestsFor(phone)).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/106540352242922/block_users',
        authorization: 'Bearer graph-token',
        body: { messaging_product: 'whatsapp', block_users: [{ user: phone }] },
      }),
    ]);
    expect((await t.request('GET', `/api/v1/contacts/${contact.id}`, { token })).body.blocked).toBe(true);
    const updated = (await t.events('contact.updated')).filter((event) => event.data.contact.id === contact.id);
    expect(updated.map((event) => event.data.contact.blocked)).toEqual([true]);
  });

  it('refuses to send to a blocked customer with 422, and sends again once unblocked', async () => {
    const { id, phone } = await customerWrites(t);
    const contact = await contactOf(phone);
    expect((await block(contact.id)).status).toBe(200);
    const refused = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token, body: { type: 'text', text: 'Hello?' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('The customer is blocked: unblock them to write to them');
    const unblocked = await unblock(contact.id);
    expect(unblocked.status).toBe(200);
    expect(unblocked.body.blocked).toBe(false);
    expect(requestsFor(phone).map((r) => r.method)).toEqual(['POST', 'DELETE']);
    expect(graph.blocked.has(phone)).toBe(false);
    const sent = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token, body: { type: 'text', text: 'Hello again' } });
    expect(sent.status).toBe(201);
  });

  it('keeps a blocked customer’s number, contact and reactions until unblocked, so the block can always be lifted', async () => {
    const { id, phone } = await customerWrites(t);
    const contact = await contactOf(phone);
    const other = await contactOf((await customerWrites(t)).phone);
    expect((await block(contact.id)).status).toBe(200);
    const refusal = 'The customer is blocked: unblock them first, so that the channel lifts the block of this number';
    const renumbered = await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token, body: { phone: '+14155559999' } });
    expect([renumbered.status, renumbered.body.error]).toEqual([409, refusal]);
    const deleted = await t.request('DELETE', `/api/v1/contacts/${contact.id}`, { token });
    expect([deleted.status, deleted.body?.error]).toEqual([409, refusal]);
    const merged = await t.request('POST', `/api/v1/contacts/${other.id}/merge`, { token, body: { from: contact.id } });
    expect([merged.status, merged.body.error]).toEqual([409, `from is blocked: ${refusal}`]);
    const [inbound] = (await t.request('GET', `/api/v1/conversations/${id}/messages`, { token })).body.data;
    const reaction = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
      token,
      body: { type: 'reaction', reaction: { message_id: inbound.id, emoji: '👍' } },
    });
    expect([reaction.status, reaction.body.error]).toEqual([422, 'The customer is blocked: unblock them to write to them']);
    // Unblocked, the same changes go through.
    expect((await unblock(contact.id)).status).toBe(200);
    expect((await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token, body: { name: 'Renamed' } })).status).toBe(200);
    expect(
      (
        await t.request('POST', `/api/v1/conversations/${id}/messages`, {
          token,
          body: { type: 'reaction', reaction: { message_id: inbound.id, emoji: '👍' } },
        })
      ).status,
    ).toBe(201);
  });

  it('changes nothing and asks the channel nothing when the customer is already blocked, or not blocked', async () => {
    const { phone } = await customerWrites(t);
    const contact = await contactOf(phone);
    expect((await unblock(contact.id)).body.blocked).toBe(false);
    expect((await block(contact.id)).body.blocked).toBe(true);
    const events = (await t.events('contact.updated')).length;
    expect((await block(contact.id)).body.blocked).toBe(true);
    expect(requestsFor(phone)).toHaveLength(1);
    expect((await t.events('contact.updated')).length).toBe(events);
  });

  it('refuses with 422 a customer whose last message is more than 24 hours old, without asking the channel', async () => {
    const { phone } = await customerWrites(t, { timestamp: dayAndAMinuteAgo() });
    const contact = await contactOf(phone);
    const answer = await block(contact.id);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe(
      "The customer's last message is more than 24 hours old: only a customer who wrote in the last 24 hours can be blocked",
    );
    expect(requestsFor(phone)).toEqual([]);
    expect((await t.request('GET', `/api/v1/contacts/${contact.id}`, { token })).body.blocked).toBe(false);
  });

  it('refuses with 422 a contact that never wrote', async () => {
    const created = await t.request('POST', '/api/v1/contacts', { token, body: { phone: '+14155559876', name: 'Never wrote' } });
    expect(created.status).toBe(201);
    expect((await block(created.body.id)).status).toBe(422);
  });

  it('answers 422 with the channel’s reason when it refuses, leaving the contact unblocked', async () => {
    const { phone } = await customerWrites(t);
    const contact = await contactOf(phone);
    graph.failBlockListNext({
      status: 400,
      body: {
        messaging_product: 'whatsapp',
        block_users: {
          added_users: [],
          failed_users: [
            {
              input: phone,
              errors: [
                { message: 'Re-engagement required', code: 131047, error_data: { details: 'User has not messaged in the last 24 hours' } },
              ],
            },
          ],
        },
        error: { message: '(#139100) Failed to block/unblock users', type: 'OAuthException', code: 139100 },
      },
    });
    const answer = await block(contact.id);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe(
      'The channel refused to block the customer: (#131047) Re-engagement required: User has not messaged in the last 24 hours',
    );
    expect((await t.request('GET', `/api/v1/contacts/${contact.id}`, { token })).body.blocked).toBe(false);
  });

  it('answers 503 when the channel cannot do it now, leaving the contact as it was', async () => {
    const { phone } = await customerWrites(t);
    const contact = await contactOf(phone);
    graph.failBlockListNext({ status: 500, body: { error: { message: 'An unexpected error has occurred', code: 139103 } } });
    const answer = await block(contact.id);
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ error: 'The channel could not block the customer now: try again in a moment' });
    expect((await t.request('GET', `/api/v1/contacts/${contact.id}`, { token })).body.blocked).toBe(false);
    // Asked again, the channel agrees.
    expect((await block(contact.id)).body.blocked).toBe(true);
  });

  it('answers 404 for an unknown contact', async () => {
    const answer = await block(`ct_${'0'.repeat(32)}`);
    expect(answer.status).toBe(404);
    expect(answer.body.error).toBe('Contact not found');
  });
});

describe('blocking a customer on the sandbox channel', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('blocks a customer who wrote today and keeps the 24-hour rule', async () => {
    const token = await t.adminToken();
    const today = await customerWrites(t);
    const older = await customerWrites(t, { timestamp: dayAndAMinuteAgo() });
    const idOf = async (phone: string) =>
      (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token })).body.data[0].id;
    expect((await t.request('POST', `/api/v1/contacts/${await idOf(today.phone)}/block`, { token })).body.blocked).toBe(true);
    expect((await t.request('POST', `/api/v1/contacts/${await idOf(older.phone)}/block`, { token })).status).toBe(422);
  });
});

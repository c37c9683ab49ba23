import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

type Json = Record<string, unknown>;

describe('opting out of campaigns', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { CAMPAIGN_OPT_OUT_WORDS: 'STOP, unsubscribe' } });
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  const contactOf = async (phone: string) =>
    (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token: admin })).body.data[0];
  const automated = async (conversationId: string) =>
    (await t.request('GET', `/api/v1/conversations/${conversationId}/messages?limit=100`, { token: admin })).body.data
      .filter((message: Json) => message.automated)
      .map((message: Json) => message.text)
      .reverse();

  it('opts out a customer who writes STOP (any case), tells them once, and a second STOP changes and says nothing', async () => {
    const { id, phone } = await customerWrites(t, { text: 'Hi' });
    expect((await contactOf(phone)).opted_out).toBe(false);
    await customerWrites(t, { phone: phone.slice(1), text: '  stop ' });
    expect((await contactOf(phone)).opted_out).toBe(true);
    await customerWrites(t, { phone: phone.slice(1), text: 'STOP' });
    expect(await automated(id)).toEqual([expect.stringContaining('not get our campaign messages')]);
    const updates = (await t.events('contact.updated')).filter((event) => event.data.contact.phone === phone);
    expect(updates.map((event) => event.data.contact.opted_out)).toEqual([true]);
  });

  it('takes the words of CAMPAIGN_OPT_OUT_WORDS as the whole message only', async () => {
    const { phone } = await customerWrites(t, { text: 'Please stop calling me' });
    expect((await contactOf(phone)).opted_out).toBe(false);
    await customerWrites(t, { phone: phone.slice(1), text: 'Unsubscribe' });
    expect((await contactOf(phone)).opted_out).toBe(true);
  });

  it('opts back in a customer who writes START, with a confirmation; START from one who never opted out changes nothing', async () => {
    const { id, phone } = await customerWrites(t, { text: 'STOP' });
    await customerWrites(t, { phone: phone.slice(1), text: 'start' });
    expect((await contactOf(phone)).opted_out).toBe(false);
    expect(await automated(id)).toEqual([
      expect.stringContaining('not get our campaign'),
      expect.stringContaining('get our campaign messages again'),
    ]);
    const { id: other } = await customerWrites(t, { text: 'START' });
    expect(await automated(other)).toEqual([]);
  });

  it('lets an admin opt a contact out and back in, and refuses an agent with 403 while their other changes go through', async () => {
    const { phone } = await customerWrites(t, { text: 'Hello' });
    const contact = await contactOf(phone);
    const out = await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token: admin, body: { opted_out: true } });
    expect(out.status).toBe(200);
    expect(out.body.opted_out).toBe(true);
    const agent = await t.createUser({ role: 'agent' });
    const refused = await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token: agent.token, body: { opted_out: false } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Only admins opt a contact in or out of campaigns');
    const renamed = await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token: agent.token, body: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', opted_out: true });
    const back = await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token: admin, body: { opted_out: false } });
    expect(back.body.opted_out).toBe(false);
    const wrong = await t.request('PATCH', `/api/v1/contacts/${contact.id}`, { token: admin, body: { opted_out: 'yes' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain('opted_out must be true or false');
  });

  it('sends no greeting with the confirmation of a STOP that opens a conversation', async () => {
    await t.request('PATCH', '/api/v1/inboxes/inb_00000000000070008000000000000001', {
      token: admin,
      body: { greeting: { enabled: true, text: 'Welcome!' } },
    });
    try {
      const { id } = await customerWrites(t, { text: 'STOP' });
      expect(await automated(id)).toEqual([expect.stringContaining('not get our campaign messages')]);
      const { id: greeted } = await customerWrites(t, { text: 'Hello there' });
      expect(await automated(greeted)).toEqual(['Welcome!']);
    } finally {
      await t.request('PATCH', '/api/v1/inboxes/inb_00000000000070008000000000000001', { token: admin, body: { greeting: null } });
    }
  });
});

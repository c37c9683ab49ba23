import { messagesWebhook } from '../scripts/lib/channel-webhook';
import { channelMessage } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { startTestApp, TestApp } from './support/test-app';

const DEFAULT_INBOX = 'inb_00000000000070008000000000000001';

describe('inboxes', () => {
  describe('on the sandbox (no MESSAGING_* settings)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it('lists the default inbox to every user, as the sandbox: no number, no token', async () => {
      const agent = await t.createUser({ name: 'Inbox Reader' });
      const answer = await t.request('GET', '/api/v1/inboxes', { token: agent.token });
      expect(answer.status).toBe(200);
      expect(answer.body.next_cursor).toBeNull();
      expect(answer.body.data).toEqual([
        {
          id: DEFAULT_INBOX,
          name: 'Default',
          phone_number_id: null,
          display_phone_number: null,
          business_account_id: null,
          status: 'active',
          has_access_token: false,
          has_app_secret: false,
          is_default: true,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ]);
    });

    it('puts every conversation in the default inbox, and filters the list by inbox_id', async () => {
      const admin = await t.adminToken();
      const { id } = await customerWrites(t, { name: 'Inbox Customer' });
      expect((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body.inbox_id).toBe(DEFAULT_INBOX);
      const inDefault = await t.request('GET', `/api/v1/conversations?inbox_id=${DEFAULT_INBOX}`, { token: admin });
      expect(inDefault.body.data.map((c) => c.id)).toContain(id);
      const elsewhere = await t.request('GET', `/api/v1/conversations?inbox_id=inb_${'0'.repeat(31)}9`, { token: admin });
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.body.data).toEqual([]);
      // Message search filters by inbox the same way.
      await customerWrites(t, { name: 'Searched Inbox', text: 'zanzibar parcel' });
      const found = await t.request('GET', `/api/v1/messages/search?q=zanzibar&inbox_id=${DEFAULT_INBOX}`, { token: admin });
      expect(found.body.data.map((m) => m.text)).toEqual(['zanzibar parcel']);
      const foundElsewhere = await t.request('GET', `/api/v1/messages/search?q=zanzibar&inbox_id=inb_${'0'.repeat(31)}9`, { token: admin });
      expect(foundElsewhere.body.data).toEqual([]);
      const malformed = await t.request('GET', '/api/v1/conversations?inbox_id=support', { token: admin });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual({ error: 'inbox_id must be an inbox id (inb_…)' });
    });

    it('opens an outbound conversation in the inbox asked for, and refuses an inbox that does not exist with 422', async () => {
      const admin = await t.adminToken();
      const contact = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: '+16315557777', name: 'Outbound' } });
      const opened = await t.request('POST', '/api/v1/conversations', {
        token: admin,
        body: { contact_id: contact.body.id, inbox_id: DEFAULT_INBOX },
      });
      expect(opened.status).toBe(201);
      expect(opened.body.inbox_id).toBe(DEFAULT_INBOX);
      const again = await t.request('POST', '/api/v1/conversations', { token: admin, body: { contact_id: contact.body.id } });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(opened.body.id);
      for (const inbox_id of [`inb_${'0'.repeat(31)}9`, 'support']) {
        const refused = await t.request('POST', '/api/v1/conversations', { token: admin, body: { contact_id: contact.body.id, inbox_id } });
        expect(refused.status).toBe(422);
        expect(refused.body).toEqual({ error: 'inbox_id does not name an active inbox' });
      }
    });

    it('takes the changes of any number while the default inbox is the sandbox, which has no number of its own', async () => {
      const body = messagesWebhook(
        { contacts: [{ wa_id: '16315550901', profile: { name: 'Any Number' } }], messages: [channelMessage({ from: '16315550901' })] },
        { phoneNumberId: '123456789012345' },
      );
      expect((await t.request('POST', '/api/webhooks/messaging', { body })).status).toBe(200);
      const list = await t.request('GET', '/api/v1/conversations?q=Any%20Number', { token: await t.adminToken() });
      expect(list.body.data.map((c) => c.inbox_id)).toEqual([DEFAULT_INBOX]);
    });

    it('refuses the list without a token', async () => {
      expect((await t.request('GET', '/api/v1/inboxes')).status).toBe(401);
    });
  });

  describe('described by the MESSAGING_* settings', () => {
    let graph: FakeGraphApi;
    let database: TestDatabase;
    beforeAll(async () => {
      graph = await FakeGraphApi.start();
      database = await createTestDatabase();
    });
    afterAll(async () => {
      await database.drop();
      await graph.close();
    });

    const inboxesAfterStart = async (env: Record<string, string>) => {
      const t = await startTestApp({ database, env });
      try {
        const answer = await t.request('GET', '/api/v1/inboxes', { token: await t.adminToken() });
        const [stored] = await t.sql<{ access_token: string | null; app_secret: string | null }>(
          'SELECT access_token, app_secret FROM inboxes',
        );
        return { answer, stored };
      } finally {
        await t.close();
      }
    };

    it('keeps the default inbox in step with the settings at each start, its token and secret sealed and never answered', async () => {
      const env = { ...graph.channelEnv, MESSAGING_BUSINESS_ACCOUNT_ID: '102290129340398', MESSAGING_APP_SECRET: 'app-secret-one' };
      const first = await inboxesAfterStart(env);
      expect(first.answer.body.data).toEqual([
        expect.objectContaining({
          id: DEFAULT_INBOX,
          phone_number_id: '106540352242922',
          business_account_id: '102290129340398',
          has_access_token: true,
          has_app_secret: true,
        }),
      ]);
      expect(first.answer.text).not.toContain('graph-token');
      expect(first.answer.text).not.toContain('app-secret-one');
      expect(first.stored.access_token).toMatch(/^\S+:/);
      expect(first.stored.access_token).not.toContain('graph-token');
      expect(first.stored.app_secret).not.toContain('app-secret-one');

      // The same start again writes nothing; a changed setting changes the inbox; no token makes it the sandbox again.
      const again = await inboxesAfterStart(env);
      expect(again.answer.body.data[0].updated_at).toBe(first.answer.body.data[0].updated_at);
      const moved = await inboxesAfterStart({ ...env, MESSAGING_PHONE_NUMBER_ID: '200000000000001' });
      expect(moved.answer.body.data[0]).toMatchObject({ phone_number_id: '200000000000001', has_access_token: true });
      const sandbox = await inboxesAfterStart({});
      expect(sandbox.answer.body.data[0]).toMatchObject({
        phone_number_id: null,
        business_account_id: null,
        has_access_token: false,
        has_app_secret: false,
      });
      expect(sandbox.stored).toEqual({ access_token: null, app_secret: null });
    });

    it('keeps a change for a number no inbox has as a dead letter (still 200), and replays it by itself once an inbox has the number', async () => {
      const env = { ...graph.channelEnv };
      const body = messagesWebhook(
        { contacts: [{ wa_id: '16315550902', profile: { name: 'Second Number' } }], messages: [channelMessage({ from: '16315550902' })] },
        { phoneNumberId: '300000000000003' },
      );
      const before = await startTestApp({ database, env });
      let letterId: string;
      try {
        const admin = await before.adminToken();
        expect((await before.request('POST', '/api/webhooks/messaging', { body })).status).toBe(200);
        expect((await before.request('GET', '/api/v1/conversations?q=Second%20Number', { token: admin })).body.data).toEqual([]);
        const letters = await before.request('GET', '/api/v1/inbound/failed', { token: admin });
        expect(letters.body.data[0]).toMatchObject({
          reason: 'unknown phone number',
          phone_number_id: '300000000000003',
          replayed_at: null,
        });
        letterId = letters.body.data[0].id;
        // Replayed by hand while no inbox has the number, it stays a dead letter, saying why.
        const replay = await before.request('POST', `/api/v1/inbound/failed/${letterId}/replay`, { token: admin });
        expect(replay.status).toBe(422);
        expect(replay.body.error).toMatch(/300000000000003, which no inbox has/);
      } finally {
        await before.close();
      }
      // The number becomes the default inbox's: the start replays the letter.
      const after = await startTestApp({ database, env: { ...env, MESSAGING_PHONE_NUMBER_ID: '300000000000003' } });
      try {
        const admin = await after.adminToken();
        const list = await after.request('GET', '/api/v1/conversations?q=Second%20Number', { token: admin });
        expect(list.body.data).toEqual([expect.objectContaining({ inbox_id: DEFAULT_INBOX })]);
        const letters = await after.request('GET', '/api/v1/inbound/failed', { token: admin });
        expect(letters.body.data.find((letter) => letter.id === letterId)).toMatchObject({
          replayed_at: expect.any(String),
          replay_error: null,
        });
      } finally {
        await after.close();
      }
    });
  });
});

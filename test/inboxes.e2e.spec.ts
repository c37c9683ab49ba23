import { randomBytes } from 'node:crypto';
import { hubSignature, messagesWebhook } from '../scripts/lib/channel-webhook';
import { channelMessage, eventually } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { multipart } from './support/multipart';
import { SseClient } from './support/sse-client';
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
          channel_error: null,
          channel_error_at: null,
          assignment: { mode: 'manual', capacity: null, team_id: null },
          business_hours: null,
          open_now: true,
          greeting: null,
          away: null,
          auto_resolve_after: null,
          csat: null,
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

  describe('what to paste into Meta’s dashboard', () => {
    it('answers an admin the callback URL, the verify token and the fields, and refuses an agent with 403', async () => {
      const t = await startTestApp({ env: { APP_URL: 'https://inbox.example.com/', MESSAGING_WEBHOOK_VERIFY_TOKEN: 'verify-me-1234' } });
      try {
        const answer = await t.request('GET', '/api/v1/inboxes/channel-webhook', { token: await t.adminToken() });
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({
          callback_url: 'https://inbox.example.com/api/webhooks/messaging',
          verify_token: 'verify-me-1234',
          fields: ['messages', 'message_template_status_update', 'template_category_update'],
        });
        const agent = await t.createUser({ role: 'agent' });
        expect((await t.request('GET', '/api/v1/inboxes/channel-webhook', { token: agent.token })).status).toBe(403);
      } finally {
        await t.close();
      }
    });

    it('answers a null verify token when none is set', async () => {
      const t = await startTestApp();
      try {
        const answer = await t.request('GET', '/api/v1/inboxes/channel-webhook', { token: await t.adminToken() });
        expect(answer.body).toMatchObject({ verify_token: null });
      } finally {
        await t.close();
      }
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
        expect(replay.body.error).toMatch(/300000000000003, which no active inbox has/);
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

  describe('two numbers, each with its own token and app secret', () => {
    const SUPPORT_NUMBER = '106540352242922';
    const SALES_NUMBER = '200000000000002';
    let graph: FakeGraphApi;
    let t: TestApp;
    let admin: string;
    let sales: string;
    let lastPhone = 16465550000 + Math.floor(Math.random() * 9000);

    /** The body of a customer writing to a number, signed with `secret`; answers the webhook's status. */
    const writes = async (number: string, secret: string, customer: { phone: string; name: string; text?: string }) => {
      const payload = JSON.stringify(
        messagesWebhook(
          {
            contacts: [{ wa_id: customer.phone, profile: { name: customer.name } }],
            messages: [channelMessage({ from: customer.phone, payload: { body: customer.text ?? 'Hello' } })],
          },
          { phoneNumberId: number },
        ),
      );
      return t.request('POST', '/api/webhooks/messaging', {
        payload,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, secret) },
      });
    };
    const conversationsOf = async (phone: string) =>
      (await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(`+${phone}`)}`, { token: admin })).body.data;

    beforeAll(async () => {
      graph = await FakeGraphApi.start();
      t = await startTestApp({
        env: { ...graph.channelEnv, MESSAGING_APP_SECRET: 'support-secret', METRICS_TOKEN: 'inbox-metrics-token-1234' },
      });
      admin = await t.adminToken();
      const created = await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Sales', phone_number_id: SALES_NUMBER, access_token: 'sales-token', app_secret: 'sales-secret' },
      });
      expect(created.status).toBe(201);
      sales = created.body.id;
    });
    afterAll(async () => {
      await t.close();
      await graph.close();
    });

    it('adds a number as an inbox (admin), its token and secret sealed and never answered', async () => {
      const listed = await t.request('GET', '/api/v1/inboxes', { token: admin });
      expect(listed.body.data.map((inbox) => inbox.name)).toEqual(['Default', 'Sales']);
      expect(listed.body.data[1]).toEqual({
        id: sales,
        name: 'Sales',
        phone_number_id: SALES_NUMBER,
        display_phone_number: null,
        business_account_id: null,
        status: 'active',
        has_access_token: true,
        has_app_secret: true,
        is_default: false,
        channel_error: null,
        channel_error_at: null,
        assignment: { mode: 'manual', capacity: null, team_id: null },
        business_hours: null,
        open_now: true,
        greeting: null,
        away: null,
        auto_resolve_after: null,
        csat: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(listed.text).not.toContain('sales-token');
      expect(listed.text).not.toContain('sales-secret');
      const [stored] = await t.sql<{ access_token: string; app_secret: string }>(
        'SELECT access_token, app_secret FROM inboxes WHERE name = $1',
        ['Sales'],
      );
      expect(stored.access_token).not.toContain('sales-token');
      expect(stored.app_secret).not.toContain('sales-secret');
      const audit = await t.request('GET', '/api/v1/audit-log?action=inbox.created', { token: admin });
      expect(audit.body.data[0]).toMatchObject({ target: sales, details: { name: 'Sales', phone_number_id: SALES_NUMBER } });
      expect(JSON.stringify(audit.body)).not.toContain('sales-token');
    });

    it('refuses a number another inbox has with 409, bad fields with 400 naming them, and an agent with 403', async () => {
      for (const phone_number_id of [SALES_NUMBER, SUPPORT_NUMBER]) {
        const taken = await t.request('POST', '/api/v1/inboxes', {
          token: admin,
          body: { name: 'Again', phone_number_id, access_token: 'x' },
        });
        expect(taken.status).toBe(409);
        expect(taken.body).toEqual({ error: `Another inbox has the phone number id ${phone_number_id}` });
      }
      const malformed = await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Bad', phone_number_id: '+1 555', access_token: 'x' },
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toMatch(/phone_number_id must be the digits/);
      const tokenless = await t.request('POST', '/api/v1/inboxes', { token: admin, body: { name: 'Bad', phone_number_id: '5' } });
      expect(tokenless.status).toBe(400);
      expect(tokenless.body.error).toMatch(/access_token/);
      const agent = await t.createUser({ name: 'Inbox Agent' });
      const refused = await t.request('POST', '/api/v1/inboxes', {
        token: agent.token,
        body: { name: 'Mine', phone_number_id: '5', access_token: 'x' },
      });
      expect(refused.status).toBe(403);
      expect((await t.request('GET', '/api/v1/inboxes', { token: agent.token })).status).toBe(200);
    });

    it('answers 400 naming the field for null, a wrong type or an empty value in every field it takes', async () => {
      const valid = { name: 'Fields', phone_number_id: '200000000000088', access_token: 'fields-token' };
      const cases: [string, unknown][] = [
        ['name', null],
        ['name', 42],
        ['name', ''],
        ['phone_number_id', null],
        ['phone_number_id', 42],
        ['phone_number_id', ''],
        ['business_account_id', null],
        ['business_account_id', 42],
        ['business_account_id', ''],
        ['access_token', null],
        ['access_token', 42],
        ['access_token', ''],
        ['app_secret', null],
        ['app_secret', 42],
        ['app_secret', ''],
      ];
      for (const [field, value] of cases) {
        const created = await t.request('POST', '/api/v1/inboxes', { token: admin, body: { ...valid, [field]: value } });
        expect({ field, value, status: created.status }).toEqual({ field, value, status: 400 });
        expect(created.body.error).toContain(field);
      }
      const inbox = await t.request('POST', '/api/v1/inboxes', { token: admin, body: valid });
      expect(inbox.status).toBe(201);
      // null removes the business account and the app secret; anything else that is not a value of the field is a 400.
      const patchCases: [string, unknown][] = [
        ['name', null],
        ['name', ''],
        ['phone_number_id', null],
        ['phone_number_id', 'x'],
        ['business_account_id', 42],
        ['access_token', null],
        ['access_token', ''],
        ['app_secret', ''],
        ['status', null],
        ['status', 'paused'],
      ];
      for (const [field, value] of patchCases) {
        const patched = await t.request('PATCH', `/api/v1/inboxes/${inbox.body.id}`, { token: admin, body: { [field]: value } });
        expect({ field, value, status: patched.status }).toEqual({ field, value, status: 400 });
        expect(patched.body.error).toContain(field);
      }
      const cleared = await t.request('PATCH', `/api/v1/inboxes/${inbox.body.id}`, {
        token: admin,
        body: { business_account_id: null, app_secret: null },
      });
      expect(cleared.body).toMatchObject({ business_account_id: null, has_app_secret: false });
      for (const user_ids of [null, 42, '', ['nobody'], [null]]) {
        const put = await t.request('PUT', `/api/v1/inboxes/${inbox.body.id}/members`, { token: admin, body: { user_ids } });
        expect({ user_ids, status: put.status }).toEqual({ user_ids, status: 400 });
        expect(put.body.error).toContain('user_ids');
      }
      for (const inbox_ids of [null, 42, '', [null]]) {
        const user = await t.request('POST', '/api/v1/users', {
          token: admin,
          body: { email: 'fields@example.com', name: 'Fields', role: 'agent', password: 'a-long-password-1', inbox_ids },
        });
        expect({ inbox_ids, status: user.status }).toEqual({ inbox_ids, status: 400 });
        expect(user.body.error).toContain('inbox_ids');
      }
      for (const url of [
        '/api/v1/conversations/counts?inbox_id=',
        '/api/v1/contacts?inbox_id=x',
        '/api/v1/messages/search?q=a&inbox_id=1',
        '/api/v1/templates?inbox_id=inb_nope',
        '/api/v1/templates?inbox_id=',
      ]) {
        const answer = await t.request('GET', url, { token: admin });
        expect({ url, status: answer.status, body: answer.body }).toEqual({
          url,
          status: 400,
          body: { error: 'inbox_id must be an inbox id (inb_…)' },
        });
      }
      await t.request('DELETE', `/api/v1/inboxes/${inbox.body.id}`, { token: admin });
    });

    it('checks each number’s webhooks with its own app secret', async () => {
      const customer = { phone: String((lastPhone += 1)), name: 'Signed Twice' };
      expect((await writes(SALES_NUMBER, 'support-secret', customer)).status).toBe(401);
      expect((await writes(SUPPORT_NUMBER, 'sales-secret', customer)).status).toBe(401);
      expect(await conversationsOf(customer.phone)).toEqual([]);
      expect((await writes(SALES_NUMBER, 'sales-secret', customer)).status).toBe(200);
      expect((await writes(SUPPORT_NUMBER, 'support-secret', customer)).status).toBe(200);
      expect((await conversationsOf(customer.phone)).length).toBe(2);
    });

    it('unblocks a customer on the number they were blocked on, though they wrote to the other since', async () => {
      const phone = String((lastPhone += 1));
      await writes(SUPPORT_NUMBER, 'support-secret', { phone, name: 'Blocked Once' });
      const contact = (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(`+${phone}`)}`, { token: admin })).body.data[0];
      expect((await t.request('POST', `/api/v1/contacts/${contact.id}/block`, { token: admin })).status).toBe(200);
      await writes(SALES_NUMBER, 'sales-secret', { phone, name: 'Blocked Once', text: 'now on sales' });
      expect((await t.request('POST', `/api/v1/contacts/${contact.id}/unblock`, { token: admin })).status).toBe(200);
      const mine = graph.blockListRequests().filter((r) => JSON.stringify(r.body).includes(phone));
      expect(mine.map((r) => `${r.method} ${r.path} ${r.authorization}`)).toEqual([
        `POST /${SUPPORT_NUMBER}/block_users Bearer graph-token`,
        `DELETE /${SUPPORT_NUMBER}/block_users Bearer graph-token`,
      ]);
    });

    it('keeps a customer writing to both numbers as one contact with a conversation in each, and answers each from its own number and token', async () => {
      const phone = String((lastPhone += 1));
      await writes(SUPPORT_NUMBER, 'support-secret', { phone, name: 'Two Threads', text: 'to support' });
      await writes(SALES_NUMBER, 'sales-secret', { phone, name: 'Two Threads', text: 'to sales' });
      const conversations = await conversationsOf(phone);
      expect(conversations.map((c) => c.inbox_id).sort()).toEqual([DEFAULT_INBOX, sales].sort());
      const contacts = await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(`+${phone}`)}`, { token: admin });
      expect(contacts.body.data).toHaveLength(1);
      const salesThread = await t.request('GET', `/api/v1/conversations?inbox_id=${sales}&q=${encodeURIComponent(`+${phone}`)}`, {
        token: admin,
      });
      expect(salesThread.body.data.map((c) => c.last_message?.text)).toEqual(['to sales']);

      for (const conversation of conversations) {
        const sent = await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
          token: admin,
          body: { type: 'text', text: `reply in ${conversation.inbox_id}` },
        });
        expect(sent.status).toBe(201);
      }
      await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(2));
      const byText = Object.fromEntries(
        graph.sendsTo(phone).map((r) => [(r.body!.text as { body: string }).body, { path: r.path, authorization: r.authorization }]),
      );
      expect(byText).toEqual({
        [`reply in ${DEFAULT_INBOX}`]: { path: `/${SUPPORT_NUMBER}/messages`, authorization: 'Bearer graph-token' },
        [`reply in ${sales}`]: { path: `/${SALES_NUMBER}/messages`, authorization: 'Bearer sales-token' },
      });
    });

    it('lists and exports the customers of one inbox', async () => {
      const onlySupport = String((lastPhone += 1));
      const onlySales = String((lastPhone += 1));
      await writes(SUPPORT_NUMBER, 'support-secret', { phone: onlySupport, name: 'Support Only' });
      await writes(SALES_NUMBER, 'sales-secret', { phone: onlySales, name: 'Sales Only Customer' });
      const listed = await t.request('GET', `/api/v1/contacts?inbox_id=${sales}&limit=100`, { token: admin });
      const phones = listed.body.data.map((contact) => contact.phone);
      expect(phones).toContain(`+${onlySales}`);
      expect(phones).not.toContain(`+${onlySupport}`);
      const exported = await t.request('GET', `/api/v1/contacts/export?inbox_id=${sales}`, { token: admin });
      expect(exported.status).toBe(200);
      expect(exported.text).toContain(`+${onlySales}`);
      expect(exported.text).not.toContain(`+${onlySupport}`);
      const malformed = await t.request('GET', '/api/v1/contacts?inbox_id=sales', { token: admin });
      expect(malformed.body).toEqual({ error: 'inbox_id must be an inbox id (inb_…)' });
    });

    it('uploads media, reacts and downloads a customer’s media through the conversation’s number', async () => {
      const phone = String((lastPhone += 1));
      const image = graph.addMedia(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(500)]), 'image/jpeg');
      const payload = JSON.stringify(
        messagesWebhook(
          {
            contacts: [{ wa_id: phone, profile: { name: 'Sales Media' } }],
            messages: [channelMessage({ from: phone, type: 'image', payload: { id: image.id, mime_type: 'image/jpeg' } })],
          },
          { phoneNumberId: SALES_NUMBER },
        ),
      );
      const received = await t.request('POST', '/api/webhooks/messaging', {
        payload,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, 'sales-secret') },
      });
      expect(received.status).toBe(200);
      await eventually(async () => expect(graph.mediaRequests(image.id).length).toBeGreaterThanOrEqual(2));
      expect(new Set(graph.mediaRequests(image.id).map((r) => r.authorization))).toEqual(new Set(['Bearer sales-token']));

      const [conversation] = await conversationsOf(phone);
      const thread = await t.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: admin });
      const reacted = await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
        token: admin,
        body: { type: 'reaction', reaction: { message_id: thread.body.data[0].id, emoji: '👍' } },
      });
      expect(reacted.status).toBe(201);
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
      const uploaded = await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 'parcel.png', 'image/png', png) });
      expect(uploaded.status).toBe(201);
      const sent = await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
        token: admin,
        body: { type: 'image', image: { media_id: (uploaded.body as { id: string }).id } },
      });
      expect(sent.status).toBe(201);
      await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(2));
      expect(graph.sendsTo(phone).map((r) => [r.path, r.authorization])).toEqual([
        [`/${SALES_NUMBER}/messages`, 'Bearer sales-token'],
        [`/${SALES_NUMBER}/messages`, 'Bearer sales-token'],
      ]);
      expect(graph.mediaUploads.at(-1)).toMatchObject({ path: `/${SALES_NUMBER}/media`, authorization: 'Bearer sales-token' });
    });

    it('tests an inbox’s connection now, keeping the number as the channel shows it, and says why it fails', async () => {
      const tested = await t.request('POST', `/api/v1/inboxes/${sales}/test`, { token: admin });
      expect(tested.status).toBe(200);
      expect(tested.body).toEqual({ ok: true, channel: 'whatsapp', display_phone_number: '15550000000' });
      expect(graph.requests.at(-1)).toMatchObject({ method: 'GET', path: `/${SALES_NUMBER}`, authorization: 'Bearer sales-token' });
      expect((await t.request('GET', `/api/v1/inboxes/${sales}`, { token: admin })).body.display_phone_number).toBe('15550000000');
      graph.healthStatus = 401;
      try {
        const failing = await t.request('POST', `/api/v1/inboxes/${sales}/test`, { token: admin });
        expect(failing.body).toMatchObject({ ok: false, channel: 'whatsapp', error: expect.stringMatching(/Invalid OAuth access token/) });
      } finally {
        graph.healthStatus = 200;
      }
    });

    it('names a failing inbox in the messaging health check, and counts each number’s sends under its inbox label', async () => {
      expect((await t.request('GET', '/api/health/messaging')).body).toEqual({ status: 'ok', channel: 'whatsapp' });
      const broken = await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Broken', phone_number_id: '200000000000005', access_token: 'broken-token' },
      });
      graph.failHealthOf('200000000000005');
      try {
        const unhealthy = await t.request('GET', '/api/health/messaging', { token: admin });
        expect(unhealthy.status).toBe(503);
        expect(unhealthy.body.error).toBe(
          'Messaging channel is unhealthy: inbox "Broken" (200000000000005): (#190) Invalid OAuth access token',
        );
      } finally {
        graph.healthyAgain();
        await t.request('PATCH', `/api/v1/inboxes/${broken.body.id}`, { token: admin, body: { status: 'disabled' } });
      }
      // A disabled inbox is not checked.
      expect((await t.request('GET', '/api/health/messaging')).status).toBe(200);

      const metrics = (await t.request('GET', '/metrics', { headers: { authorization: 'Bearer inbox-metrics-token-1234' } })).text;
      expect(metrics).toMatch(new RegExp(`team_inbox_channel_sends_total\\{inbox="${sales}",outcome="sent"\\} [1-9]`));
      expect(metrics).toMatch(new RegExp(`team_inbox_channel_sends_total\\{inbox="${DEFAULT_INBOX}",outcome="sent"\\} [1-9]`));
    });

    it('keeps the default inbox’s channel fields to the settings (422), and renames it', async () => {
      const refused = await t.request('PATCH', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin, body: { access_token: 'other' } });
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({
        error: "The default inbox's access_token is set by the MESSAGING_* settings: change them there and restart",
      });
      const disabled = await t.request('PATCH', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin, body: { status: 'disabled' } });
      expect(disabled.status).toBe(422);
      const renamed = await t.request('PATCH', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin, body: { name: 'Support' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'Support', is_default: true, has_access_token: true });
    });

    it('holds a disabled inbox’s webhooks as dead letters and refuses its sends (422); enabled again, it replays them', async () => {
      const inbox = await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Seasonal', phone_number_id: '200000000000004', access_token: 'seasonal-token' },
      });
      const phone = String((lastPhone += 1));
      expect((await writes('200000000000004', 'support-secret', { phone, name: 'Seasonal Customer', text: 'first' })).status).toBe(200);
      const [conversation] = await conversationsOf(phone);
      expect(conversation.inbox_id).toBe(inbox.body.id);
      const disabled = await t.request('PATCH', `/api/v1/inboxes/${inbox.body.id}`, { token: admin, body: { status: 'disabled' } });
      expect(disabled.body.status).toBe('disabled');
      const send = await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
        token: admin,
        body: { type: 'text', text: 'not now' },
      });
      expect(send.status).toBe(422);
      expect(send.body).toEqual({ error: 'The inbox of this conversation is disabled: an admin enables it to send again' });
      expect((await writes('200000000000004', 'support-secret', { phone, name: 'Seasonal Customer', text: 'while off' })).status).toBe(200);
      const letters = await t.request('GET', '/api/v1/inbound/failed', { token: admin });
      expect(letters.body.data[0]).toMatchObject({ reason: 'unknown phone number', phone_number_id: '200000000000004' });
      expect((await conversationsOf(phone))[0].last_message?.text).toBe('first');
      await t.request('PATCH', `/api/v1/inboxes/${inbox.body.id}`, { token: admin, body: { status: 'active' } });
      await eventually(async () => expect((await conversationsOf(phone))[0].last_message?.text).toBe('while off'));
    });

    it('replays the webhooks kept for a number once an inbox with it is created', async () => {
      const phone = String((lastPhone += 1));
      expect((await writes('200000000000009', 'support-secret', { phone, name: 'Early Bird', text: 'before the inbox' })).status).toBe(200);
      expect(await conversationsOf(phone)).toEqual([]);
      const created = await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Late Number', phone_number_id: '200000000000009', access_token: 'late-token' },
      });
      const [conversation] = await eventually(async () => {
        const found = await conversationsOf(phone);
        expect(found).toHaveLength(1);
        return found;
      });
      expect(conversation).toMatchObject({
        inbox_id: created.body.id,
        last_message: expect.objectContaining({ text: 'before the inbox' }),
      });
    });

    it('replays a kept body into an inbox with its own app secret only when that secret signed it', async () => {
      const phone = String((lastPhone += 1));
      // Kept while no inbox had the number, checked then with MESSAGING_APP_SECRET.
      expect((await writes('200000000000010', 'support-secret', { phone, name: 'Forged Early', text: 'not from meta' })).status).toBe(200);
      const letters = await t.request('GET', '/api/v1/inbound/failed', { token: admin });
      const letter = letters.body.data.find((kept) => kept.phone_number_id === '200000000000010')!;
      await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Own Secret', phone_number_id: '200000000000010', access_token: 'own-token', app_secret: 'own-secret' },
      });
      await eventually(async () => {
        const again = await t.request('GET', '/api/v1/inbound/failed', { token: admin });
        expect(again.body.data.find((kept) => kept.id === letter.id)).toMatchObject({
          replayed_at: null,
          replay_error: 'X-Hub-Signature-256 is missing or does not match the body',
        });
      });
      expect(await conversationsOf(phone)).toEqual([]);
    });

    it('deletes only an inbox without conversations (409 otherwise, and for the default one)', async () => {
      const kept = await t.request('DELETE', `/api/v1/inboxes/${sales}`, { token: admin });
      expect(kept.status).toBe(409);
      expect(kept.body).toEqual({ error: 'The inbox has conversations, which would be lost: disable it instead (status "disabled")' });
      expect((await t.request('DELETE', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin })).status).toBe(409);
      const empty = await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Empty', phone_number_id: '200000000000007', access_token: 'x' },
      });
      expect((await t.request('DELETE', `/api/v1/inboxes/${empty.body.id}`, { token: admin })).status).toBe(204);
      expect((await t.request('GET', `/api/v1/inboxes/${empty.body.id}`, { token: admin })).status).toBe(404);
      const audit = await t.request('GET', '/api/v1/audit-log?action=inbox.deleted', { token: admin });
      expect(audit.body.data[0]).toMatchObject({ target: empty.body.id, details: { name: 'Empty' } });
    });
    describe('an agent of one inbox', () => {
      let agent: { id: string; token: string };
      let supportThread: { id: string };
      let salesThread: { id: string };
      let phone: string;

      beforeAll(async () => {
        agent = await t.createUser({ name: 'Sales Only', inbox_ids: [sales] });
        phone = String((lastPhone += 1));
        await writes(SUPPORT_NUMBER, 'support-secret', { phone, name: 'Both Sides', text: 'support secret words' });
        await writes(SALES_NUMBER, 'sales-secret', { phone, name: 'Both Sides', text: 'sales open words' });
        const threads = await conversationsOf(phone);
        supportThread = threads.find((c) => c.inbox_id === DEFAULT_INBOX)!;
        salesThread = threads.find((c) => c.inbox_id === sales)!;
      });

      it('is made with its inboxes, which list it as a member; users made without inbox_ids belong to the default inbox', async () => {
        const membersOf = async (inbox: string) =>
          (await t.request('GET', `/api/v1/inboxes/${inbox}/members`, { token: admin })).body.user_ids;
        expect(await membersOf(sales)).toContain(agent.id);
        expect(await membersOf(DEFAULT_INBOX)).not.toContain(agent.id);
        const plain = await t.createUser({ name: 'Default Agent' });
        expect(await membersOf(DEFAULT_INBOX)).toContain(plain.id);
        expect(await membersOf(sales)).not.toContain(plain.id);
        const unknown = await t.request('POST', '/api/v1/users', {
          token: admin,
          body: {
            email: 'nowhere@example.com',
            name: 'Nowhere',
            role: 'agent',
            password: 'a-long-password-1',
            inbox_ids: [`inb_${'0'.repeat(31)}9`],
          },
        });
        expect(unknown.status).toBe(422);
        expect(unknown.body).toEqual({ error: 'inbox_ids names an inbox that does not exist' });
        const malformed = await t.request('POST', '/api/v1/users', {
          token: admin,
          body: { email: 'nowhere@example.com', name: 'Nowhere', role: 'agent', password: 'a-long-password-1', inbox_ids: ['sales'] },
        });
        expect(malformed.status).toBe(400);
        expect(malformed.body).toEqual({ error: 'inbox_ids must hold inbox ids (inb_…)' });
      });

      it('lists, reads and works only its inbox’s conversations; the other inbox’s are 404 on every route', async () => {
        const inboxes = await t.request('GET', '/api/v1/inboxes', { token: agent.token });
        expect(inboxes.body.data.map((inbox) => inbox.id)).toEqual([sales]);
        expect((await t.request('GET', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: agent.token })).status).toBe(404);
        expect((await t.request('GET', `/api/v1/inboxes/${sales}`, { token: agent.token })).status).toBe(200);

        const listed = await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(`+${phone}`)}`, { token: agent.token });
        expect(listed.body.data.map((c) => c.id)).toEqual([salesThread.id]);
        const everything = await t.request('GET', '/api/v1/conversations?limit=100', { token: agent.token });
        expect(new Set(everything.body.data.map((c) => c.inbox_id))).toEqual(new Set([sales]));

        const hidden = `/api/v1/conversations/${supportThread.id}`;
        const routes: [string, string, Record<string, unknown>?][] = [
          ['GET', hidden],
          ['PATCH', hidden, { status: 'closed' }],
          ['POST', `${hidden}/read`],
          ['GET', `${hidden}/messages`],
          ['POST', `${hidden}/notes`, { text: 'peek' }],
          ['POST', `${hidden}/messages`, { type: 'text', text: 'peek' }],
        ];
        for (const [method, url, body] of routes) {
          const answer = await t.request(method as 'GET', url, { token: agent.token, ...(body ? { body } : {}) });
          expect({ method, url, status: answer.status, body: answer.body }).toEqual({
            method,
            url,
            status: 404,
            body: { error: 'Conversation not found' },
          });
        }
        // The same routes on its own inbox's conversation work.
        expect((await t.request('GET', `/api/v1/conversations/${salesThread.id}`, { token: agent.token })).status).toBe(200);
        expect((await t.request('GET', `/api/v1/conversations/${salesThread.id}/messages`, { token: agent.token })).status).toBe(200);
        expect((await t.request('GET', hidden, { token: admin })).status).toBe(200);
      });

      it('searches and counts only its inbox, and opens conversations only there', async () => {
        const mine = await t.request('GET', '/api/v1/messages/search?q=open%20words', { token: agent.token });
        expect(mine.body.data.map((m) => m.text)).toEqual(['sales open words']);
        const theirs = await t.request('GET', '/api/v1/messages/search?q=secret%20words', { token: agent.token });
        expect(theirs.body.data).toEqual([]);
        expect((await t.request('GET', '/api/v1/messages/search?q=secret%20words', { token: admin })).body.data).toHaveLength(1);

        const counts = await t.request('GET', '/api/v1/conversations/counts', { token: agent.token });
        const open = await t.request('GET', '/api/v1/conversations?status=open&limit=100', { token: agent.token });
        expect(counts.body.open).toBe(open.body.data.length);
        const adminSales = await t.request('GET', `/api/v1/conversations/counts?inbox_id=${sales}`, { token: admin });
        expect(adminSales.body.open).toBe(counts.body.open);
        const adminAll = await t.request('GET', '/api/v1/conversations/counts', { token: admin });
        expect(adminAll.body.open).toBeGreaterThan(adminSales.body.open);

        const contact = await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(`+${phone}`)}`, { token: agent.token });
        const elsewhere = await t.request('POST', '/api/v1/conversations', {
          token: agent.token,
          body: { contact_id: contact.body.data[0].id, inbox_id: DEFAULT_INBOX },
        });
        expect(elsewhere.status).toBe(422);
        const here = await t.request('POST', '/api/v1/conversations', {
          token: agent.token,
          body: { contact_id: contact.body.data[0].id, inbox_id: sales },
        });
        expect(here.status).toBe(200);
        expect(here.body.id).toBe(salesThread.id);
      });

      it('reads and forwards only the customers’ media of its inboxes', async () => {
        const image = graph.addMedia(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(300)]), 'image/jpeg');
        const payload = JSON.stringify(
          messagesWebhook(
            {
              contacts: [{ wa_id: phone, profile: { name: 'Both Sides' } }],
              messages: [channelMessage({ from: phone, type: 'image', payload: { id: image.id, mime_type: 'image/jpeg' } })],
            },
            { phoneNumberId: SUPPORT_NUMBER },
          ),
        );
        await t.request('POST', '/api/webhooks/messaging', {
          payload,
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, 'support-secret') },
        });
        const media = await eventually(async () => {
          const [newest] = (await t.request('GET', `/api/v1/conversations/${supportThread.id}/messages`, { token: admin })).body.data;
          expect(newest.media?.status).toBe('ready');
          return newest.media!;
        });
        expect((await t.request('GET', `/api/v1/media/${media.id}`, { token: admin })).status).toBe(200);
        const hidden = await t.request('GET', `/api/v1/media/${media.id}`, { token: agent.token });
        expect(hidden.status).toBe(404);
        expect(hidden.body).toEqual({ error: 'Media not found' });
        const forwarded = await t.request('POST', `/api/v1/conversations/${salesThread.id}/messages`, {
          token: agent.token,
          body: { type: 'image', image: { media_id: media.id } },
        });
        expect(forwarded.status).toBe(422);
        expect(forwarded.body).toEqual({ error: `image.media_id "${media.id}" is not a known media` });
      });

      it('reads and sends on an upload as its uploader, or where it was sent, and not by its id alone', async () => {
        const png = Buffer.from(
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
          'base64',
        );
        const colleague = await t.createUser({ name: 'Support Uploader' });
        const theirs = await t.request('POST', '/api/v1/media', {
          token: colleague.token,
          ...multipart('file', 'plan.png', 'image/png', png),
        });
        expect(theirs.status).toBe(201);
        const theirsId = (theirs.body as { id: string }).id;
        expect((await t.request('GET', `/api/v1/media/${theirsId}`, { token: colleague.token })).status).toBe(200);
        const hidden = await t.request('GET', `/api/v1/media/${theirsId}`, { token: agent.token });
        expect([hidden.status, hidden.body]).toEqual([404, { error: 'Media not found' }]);
        const resent = await t.request('POST', `/api/v1/conversations/${salesThread.id}/messages`, {
          token: agent.token,
          body: { type: 'image', image: { media_id: theirsId } },
        });
        expect([resent.status, resent.body]).toEqual([422, { error: `image.media_id "${theirsId}" is not a known media` }]);

        // Sent in a conversation of the sales inbox: its agents read it and send it on; the colleague does not.
        const adminUpload = await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 'offer.png', 'image/png', png) });
        const offerId = (adminUpload.body as { id: string }).id;
        const sent = await t.request('POST', `/api/v1/conversations/${salesThread.id}/messages`, {
          token: admin,
          body: { type: 'image', image: { media_id: offerId } },
        });
        expect(sent.status).toBe(201);
        expect((await t.request('GET', `/api/v1/media/${offerId}`, { token: agent.token })).status).toBe(200);
        expect((await t.request('GET', `/api/v1/media/${offerId}`, { token: colleague.token })).status).toBe(404);
      });

      it('blocks and merges customers only within the inboxes it works', async () => {
        const supportOnly = String((lastPhone += 1));
        const salesOnly = String((lastPhone += 1));
        await writes(SUPPORT_NUMBER, 'support-secret', { phone: supportOnly, name: 'Support Customer' });
        await writes(SALES_NUMBER, 'sales-secret', { phone: salesOnly, name: 'Sales Customer' });
        const contactOf = async (number: string) =>
          (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(`+${number}`)}`, { token: admin })).body.data[0].id;
        const refusedBlock = await t.request('POST', `/api/v1/contacts/${await contactOf(supportOnly)}/block`, { token: agent.token });
        expect(refusedBlock.status).toBe(422);
        expect(refusedBlock.body).toEqual({ error: 'The customer last wrote to an inbox you do not work: an admin can block them' });
        const blocked = await t.request('POST', `/api/v1/contacts/${await contactOf(salesOnly)}/block`, { token: agent.token });
        expect(blocked.status).toBe(200);
        expect(graph.requests.filter((r) => r.path === `/${SALES_NUMBER}/block_users`)).toHaveLength(1);
        expect((await t.request('POST', `/api/v1/contacts/${await contactOf(salesOnly)}/unblock`, { token: agent.token })).status).toBe(
          200,
        );

        const into = await t.request('POST', '/api/v1/contacts', {
          token: admin,
          body: { phone: `+${(lastPhone += 1)}`, name: 'Merge Target' },
        });
        const refusedMerge = await t.request('POST', `/api/v1/contacts/${into.body.id}/merge`, {
          token: agent.token,
          body: { from: await contactOf(supportOnly) },
        });
        expect(refusedMerge.status).toBe(422);
        expect(refusedMerge.body).toEqual({ error: 'from has conversations in an inbox you do not work: an admin merges these contacts' });
        const merged = await t.request('POST', `/api/v1/contacts/${into.body.id}/merge`, {
          token: agent.token,
          body: { from: await contactOf(salesOnly) },
        });
        expect(merged.status).toBe(200);
      });

      it('is not mentioned on, and does not filter contacts by, an inbox it does not work', async () => {
        const refused = await t.request('POST', `/api/v1/conversations/${supportThread.id}/notes`, {
          token: admin,
          body: { text: 'see this', mentions: [agent.id] },
        });
        expect(refused.status).toBe(422);
        expect(refused.body).toEqual({ error: `mentions: ${agent.id} does not work this conversation's inbox` });
        const mentioned = await t.request('POST', `/api/v1/conversations/${salesThread.id}/notes`, {
          token: admin,
          body: { text: 'see this', mentions: [agent.id] },
        });
        expect(mentioned.status).toBe(201);
        // A filter on an inbox of another is a 404 wherever it is taken, as the inbox itself is.
        for (const path of [
          '/api/v1/contacts?',
          '/api/v1/conversations?',
          '/api/v1/conversations/counts?',
          '/api/v1/messages/search?q=hello&',
        ]) {
          const elsewhere = await t.request('GET', `${path}inbox_id=${DEFAULT_INBOX}`, { token: agent.token });
          expect([path, elsewhere.status, elsewhere.body]).toEqual([path, 404, { error: 'Inbox not found' }]);
          expect([path, (await t.request('GET', `${path}inbox_id=${sales}`, { token: agent.token })).status]).toEqual([path, 200]);
        }
      });

      it('cannot be given a conversation of an inbox it does not work', async () => {
        const refused = await t.request('PATCH', `/api/v1/conversations/${supportThread.id}`, {
          token: admin,
          body: { assigned_to: agent.id },
        });
        expect(refused.status).toBe(422);
        expect(refused.body).toEqual({ error: "assigned_to is not a member of the conversation's inbox" });
        const assigned = await t.request('PATCH', `/api/v1/conversations/${salesThread.id}`, {
          token: admin,
          body: { assigned_to: agent.id },
        });
        expect(assigned.status).toBe(200);
      });

      it('streams only its inbox’s events, while an admin’s stream carries both', async () => {
        await t.app.listen({ port: 0, host: '127.0.0.1' });
        const url = `${(await t.app.getUrl()).replace('[::1]', '127.0.0.1')}/api/v1/events/stream`;
        const agentStream = await SseClient.connect(url, { authorization: `Bearer ${agent.token}` });
        const adminStream = await SseClient.connect(url, { authorization: `Bearer ${admin}` });
        // An admin's stream kept to one inbox, and an agent's refused for an inbox they do not see.
        const adminSalesStream = await SseClient.connect(`${url}?inbox_id=${sales}`, { authorization: `Bearer ${admin}` });
        const refused = await fetch(`${url}?inbox_id=${DEFAULT_INBOX}`, { headers: { authorization: `Bearer ${agent.token}` } });
        expect(refused.status).toBe(404);
        expect(await refused.json()).toEqual({ error: 'Inbox not found' });
        for (const malformed of ['sales', '', 'inb_nope']) {
          const answer = await fetch(`${url}?inbox_id=${malformed}`, { headers: { authorization: `Bearer ${admin}` } });
          expect([malformed, answer.status, await answer.json()]).toEqual([
            malformed,
            400,
            { error: 'inbox_id must be an inbox id (inb_…)' },
          ]);
        }
        try {
          await agentStream.until((c) => c.positions.length > 0 || c.frames('counts').length > 0);
          await adminStream.until((c) => c.positions.length > 0 || c.frames('counts').length > 0);
          await writes(SUPPORT_NUMBER, 'support-secret', { phone, name: 'Both Sides', text: 'streamed to support' });
          await writes(SALES_NUMBER, 'sales-secret', { phone, name: 'Both Sides', text: 'streamed to sales' });
          const textOf = (frame: string) => (JSON.parse(frame) as { data: { message?: { text?: string } } }).data.message?.text;
          await adminStream.until((c) => c.events.filter((e) => e.event === 'message.received').length === 2);
          await agentStream.until((c) => c.events.some((e) => textOf(e.data) === 'streamed to sales'));
          // The agent's stream had the support message before the sales one, had it been let through.
          expect(agentStream.events.filter((e) => e.event === 'message.received').map((e) => textOf(e.data))).toEqual([
            'streamed to sales',
          ]);
          await adminSalesStream.until((c) => c.events.some((e) => textOf(e.data) === 'streamed to sales'));
          expect(adminSalesStream.events.filter((e) => e.event === 'message.received').map((e) => textOf(e.data))).toEqual([
            'streamed to sales',
          ]);
        } finally {
          await agentStream.close();
          await adminStream.close();
          await adminSalesStream.close();
        }
      });

      it('sees an inbox once an admin adds it to its members, which the audit log records', async () => {
        expect((await t.request('GET', `/api/v1/inboxes/${DEFAULT_INBOX}/members`, { token: agent.token })).status).toBe(403);
        const before = await t.request('GET', `/api/v1/inboxes/${DEFAULT_INBOX}/members`, { token: admin });
        expect(before.body.user_ids).not.toContain(agent.id);
        const put = await t.request('PUT', `/api/v1/inboxes/${DEFAULT_INBOX}/members`, {
          token: admin,
          body: { user_ids: [...before.body.user_ids, agent.id] },
        });
        expect(put.status).toBe(200);
        expect(put.body.user_ids).toContain(agent.id);
        expect((await t.request('GET', `/api/v1/conversations/${supportThread.id}`, { token: agent.token })).status).toBe(200);
        const audit = await t.request('GET', '/api/v1/audit-log?action=inbox.members_changed', { token: admin });
        expect(audit.body.data[0]).toMatchObject({ target: DEFAULT_INBOX, details: { added: [agent.id], removed: [] } });
        const unknownUser = await t.request('PUT', `/api/v1/inboxes/${DEFAULT_INBOX}/members`, {
          token: admin,
          body: { user_ids: [`user_${'0'.repeat(31)}9`] },
        });
        expect(unknownUser.status).toBe(422);
        // Taken out again, the conversation is gone for it.
        await t.request('PUT', `/api/v1/inboxes/${DEFAULT_INBOX}/members`, { token: admin, body: { user_ids: before.body.user_ids } });
        expect((await t.request('GET', `/api/v1/conversations/${supportThread.id}`, { token: agent.token })).status).toBe(404);
      });

      it('loses its notifications about an inbox it leaves, and keeps those of the inboxes it still works', async () => {
        const before = (await t.request('GET', `/api/v1/inboxes/${DEFAULT_INBOX}/members`, { token: admin })).body.user_ids;
        await t.request('PUT', `/api/v1/inboxes/${DEFAULT_INBOX}/members`, { token: admin, body: { user_ids: [...before, agent.id] } });
        for (const thread of [supportThread, salesThread]) {
          const assigned = await t.request('PATCH', `/api/v1/conversations/${thread.id}`, {
            token: admin,
            body: { assigned_to: agent.id },
          });
          expect(assigned.status).toBe(200);
        }
        const notifiedAbout = async () => [
          ...new Set((await t.request('GET', '/api/v1/notifications', { token: agent.token })).body.data.map((n) => n.conversation_id)),
        ];
        expect((await notifiedAbout()).sort()).toEqual([supportThread.id, salesThread.id].sort());
        await t.request('PUT', `/api/v1/inboxes/${DEFAULT_INBOX}/members`, { token: admin, body: { user_ids: before } });
        expect(await notifiedAbout()).toEqual([salesThread.id]);
        // Taken out of an inbox through the user's own inbox_ids too.
        const moved = await t.request('PATCH', `/api/v1/users/${agent.id}`, { token: admin, body: { inbox_ids: [DEFAULT_INBOX] } });
        expect(moved.status).toBe(200);
        expect(await notifiedAbout()).toEqual([]);
        await t.request('PATCH', `/api/v1/users/${agent.id}`, { token: admin, body: { inbox_ids: [sales] } });
      });
    });
  });
});

import { randomInt } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { parsePublicId } from '../src/common/ids';
import { eventually } from './support/channel';
import { statusWebhook } from './support/channel-fixtures';
import { FakeGraphApi, type GraphAnswer, type GraphRequest } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { SseClient } from './support/sse-client';
import { describeWithPostgresAndRedis } from './support/environment';
import { startTestApp, startTwoInstances, TestApp, type Answer } from './support/test-app';
import type { components } from '../console/src/api/schema';

type Campaign = components['schemas']['CampaignResponse'];

type Json = Record<string, unknown>;

const BUSINESS_ACCOUNT = '102290129340398';
const DEFAULT_INBOX = 'inb_00000000000070008000000000000001';

/** An approved template with two body parameters, as the Graph API lists it. */
const SHIPPING_NOTICE = {
  name: 'shipping_notice',
  parameter_format: 'POSITIONAL',
  components: [{ type: 'BODY', text: 'Hi {{1}}, your order from {{2}} has shipped.' }],
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  id: '1689556908129999',
};

/** The campaign's template: the recipient's name and city filled per recipient. */
const TEMPLATE = {
  name: 'shipping_notice',
  language: 'en_US',
  components: [
    {
      type: 'body',
      parameters: [
        { type: 'text', text: '{{contact.name}}' },
        { type: 'text', text: '{{ contact.attributes.city }}' },
      ],
    },
  ],
};

const refusal = (code: number, message: string): GraphAnswer => ({
  status: code === 130429 ? 429 : 400,
  body: { error: { message: `(#${code}) ${message}`, type: 'OAuthException', code, error_data: { details: `Details of ${code}` } } },
  headers: code === 130429 ? { 'retry-after': '0' } : undefined,
});

describe('campaigns', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    graph.templates = [SHIPPING_NOTICE];
    t = await startTestApp({
      env: { ...graph.channelEnv, MESSAGING_BUSINESS_ACCOUNT_ID: BUSINESS_ACCOUNT, MESSAGING_RETRY_SCHEDULE: '50ms,50ms,50ms' },
    });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const newTag = () => `cmp-${randomInt(1e9)}`;
  const newPhone = () => `+1415${randomInt(2_000_000, 10_000_000)}`;

  async function contact(fields: Json): Promise<{ id: string; phone: string }> {
    const answer = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: newPhone(), ...fields } });
    expect(answer.status).toBe(201);
    return answer.body as { id: string; phone: string };
  }

  async function createCampaign(body: Json) {
    const answer = await t.request('POST', '/api/v1/campaigns', {
      token: admin,
      body: { name: 'Shipping', inbox_id: DEFAULT_INBOX, template: TEMPLATE, ...body },
    });
    expect(answer.status).toBe(201);
    return answer.body;
  }

  const campaign = async (id: string) => (await t.request('GET', `/api/v1/campaigns/${id}`, { token: admin })).body;
  const act = (id: string, action: 'schedule' | 'pause' | 'resume' | 'cancel', body: Json = {}) =>
    t.request('POST', `/api/v1/campaigns/${id}/${action}`, { token: admin, body }) as Promise<Answer<Campaign>>;
  async function recipients(id: string, status = ''): Promise<Json[]> {
    const all: Json[] = [];
    let cursor = '';
    do {
      const page = await t.request('GET', `/api/v1/campaigns/${id}/recipients?limit=100${status}${cursor}`, { token: admin });
      expect(page.status).toBe(200);
      all.push(...page.body.data);
      cursor = page.body.next_cursor ? `&cursor=${page.body.next_cursor}` : '';
    } while (cursor);
    return all;
  }
  const finished = (id: string) =>
    eventually(async () => {
      const now = await campaign(id);
      if (now.status !== 'completed') throw new Error(`still ${now.status}`);
      return now;
    }, 30_000);
  /** The totals once the ledger's fold has caught up with `check`. */
  const totalsBecome = (id: string, expected: Json) =>
    eventually(async () => {
      expect((await campaign(id)).totals).toEqual(expected);
    }, 15_000);
  const sendsTo = (phone: string) =>
    graph.sendsTo(phone).filter((request) => (request.body?.template as Json | undefined)?.name === 'shipping_notice');

  it('sends each recipient the template once with their own parameters, skipping the opted out, the blocked and the unfillable, and keeps each outcome', async () => {
    const tag = newTag();
    const ana = await contact({ name: 'Ana', tags: [tag], attributes: { city: 'Lisbon' } });
    const ben = await contact({ name: 'Ben', tags: [tag], attributes: { city: 'Berlin' } });
    const noCity = await contact({ name: 'Cem', tags: [tag] });
    const optedOut = await contact({ name: 'Dora', tags: [tag], attributes: { city: 'Porto' } });
    await t.request('PATCH', `/api/v1/contacts/${optedOut.id}`, { token: admin, body: { opted_out: true } });
    const failing = await contact({ name: 'Eve', tags: [tag], attributes: { city: 'Paris' } });
    graph.failNext(failing.phone, refusal(131026, 'Message undeliverable'));
    const outsider = await contact({ name: 'Finn', tags: ['other'], attributes: { city: 'Oslo' } });

    const created = await createCampaign({ audience: { tags: [tag] }, rate_per_second: 20 });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^cmp_[0-9a-f]{32}$/),
      status: 'draft',
      rate_per_second: 20,
      audience: { tags: [tag], labels: [], contact_ids: [], attributes: {} },
      totals: { recipients: 0, queued: 0, sent: 0, delivered: 0, read: 0, replied: 0, failed: 0, skipped: 0 },
    });
    expect(sendsTo(ana.phone)).toEqual([]);
    const scheduled = await act(created.id, 'schedule');
    expect(scheduled.status).toBe(200);
    expect(['scheduled', 'running']).toContain(scheduled.body.status);
    const done = await finished(created.id);
    expect(done.started_at).not.toBeNull();
    expect(done.finished_at).not.toBeNull();

    const parameters = (request: GraphRequest) =>
      ((request.body?.template as Json).components as { parameters: { text: string }[] }[])[0].parameters.map((p) => p.text);
    expect(sendsTo(ana.phone).map(parameters)).toEqual([['Ana', 'Lisbon']]);
    expect(sendsTo(ben.phone).map(parameters)).toEqual([['Ben', 'Berlin']]);
    expect(sendsTo(failing.phone)).toHaveLength(1);
    expect(sendsTo(noCity.phone)).toEqual([]);
    expect(sendsTo(optedOut.phone)).toEqual([]);
    expect(sendsTo(outsider.phone)).toEqual([]);

    const list = await recipients(created.id);
    const byName = Object.fromEntries(list.map((r) => [(r.contact as Json).name, r]));
    expect(Object.keys(byName).sort()).toEqual(['Ana', 'Ben', 'Cem', 'Dora', 'Eve']);
    expect(byName.Ana).toMatchObject({ status: 'sent', reason: null, error_code: null, message_id: expect.stringMatching(/^msg_/) });
    expect(byName.Cem).toMatchObject({ status: 'skipped', reason: 'no value for {{contact.attributes.city}}', message_id: null });
    expect(byName.Dora).toMatchObject({ status: 'skipped', reason: 'opted out' });
    expect(byName.Eve).toMatchObject({ status: 'failed', error_code: 131026, reason: expect.stringContaining('Message undeliverable') });
    await totalsBecome(created.id, { recipients: 5, queued: 0, sent: 2, delivered: 0, read: 0, replied: 0, failed: 1, skipped: 2 });

    // The message is in the customer's thread, sent by nobody, in a conversation the campaign opened closed.
    const thread = (await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(ana.phone)}`, { token: admin })).body.data;
    expect(thread).toHaveLength(1);
    expect(thread[0]).toMatchObject({ status: 'closed', assigned_to: null });
    const messages = (await t.request('GET', `/api/v1/conversations/${thread[0].id}/messages`, { token: admin })).body.data;
    expect(messages).toEqual([
      expect.objectContaining({ id: byName.Ana.message_id, type: 'template', sent_by: null, automated: true, status: 'sent' }),
    ]);
  });

  it('never has more sends in one second than rate_per_second at the channel', async () => {
    const tag = newTag();
    const phones: string[] = [];
    for (let i = 0; i < 14; i += 1) phones.push((await contact({ name: `P${i}`, tags: [tag], attributes: { city: 'Rome' } })).phone);
    const created = await createCampaign({ audience: { tags: [tag] }, rate_per_second: 4 });
    await act(created.id, 'schedule');
    await finished(created.id);
    const arrivals = phones
      .flatMap((phone) => sendsTo(phone))
      .map((request) => request.at)
      .sort((a, b) => a - b);
    expect(arrivals).toHaveLength(14);
    for (let i = 4; i < arrivals.length; i += 1) expect(arrivals[i] - arrivals[i - 4]).toBeGreaterThanOrEqual(1000);
    // …and it sends at about that rate, not far slower: 14 at 4 a second take over 3 s, and well under 10.
    expect(arrivals[arrivals.length - 1] - arrivals[0]).toBeLessThan(10_000);
  });

  it('pauses without sending anyone more, resumes where it stopped, and sends everyone once', async () => {
    const tag = newTag();
    const phones: string[] = [];
    for (let i = 0; i < 8; i += 1) phones.push((await contact({ name: `Q${i}`, tags: [tag], attributes: { city: 'Rome' } })).phone);
    const created = await createCampaign({ audience: { tags: [tag] }, rate_per_second: 2 });
    await act(created.id, 'schedule');
    const sent = () => phones.filter((phone) => sendsTo(phone).length > 0).length;
    await eventually(async () => expect(sent()).toBeGreaterThanOrEqual(2));
    const paused = await act(created.id, 'pause');
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('paused');
    // What was queued before the pause is sent; then nothing more. A marker: the queue of the
    // campaign's messages is empty, and a second later the count has not moved.
    await eventually(async () => expect((await recipients(created.id, '&status=queued')).filter((r) => r.message_id)).toEqual([]));
    const atPause = sent();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sent()).toBe(atPause);
    expect(atPause).toBeLessThan(8);
    expect((await act(created.id, 'pause')).status).toBe(409);
    const resumed = await act(created.id, 'resume');
    expect(resumed.body.status).toBe('running');
    await finished(created.id);
    expect(phones.map((phone) => sendsTo(phone).length)).toEqual(phones.map(() => 1));
  });

  it('cancels: the recipients not sent to are skipped, and a cancelled campaign can be deleted but not changed', async () => {
    const tag = newTag();
    for (let i = 0; i < 6; i += 1) await contact({ name: `R${i}`, tags: [tag], attributes: { city: 'Rome' } });
    const created = await createCampaign({ audience: { tags: [tag] }, rate_per_second: 1 });
    await act(created.id, 'schedule');
    await eventually(async () => expect((await recipients(created.id, '&status=sent')).length).toBeGreaterThanOrEqual(1));
    const cancelled = await act(created.id, 'cancel');
    expect(cancelled.body.status).toBe('cancelled');
    const skipped = await recipients(created.id, '&status=skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    expect(skipped.every((r) => r.reason === 'the campaign was cancelled')).toBe(true);
    const rename = await t.request('PATCH', `/api/v1/campaigns/${created.id}`, { token: admin, body: { name: 'Other' } });
    expect(rename.status).toBe(409);
    expect((await t.request('DELETE', `/api/v1/campaigns/${created.id}`, { token: admin })).status).toBe(204);
    expect((await t.request('GET', `/api/v1/campaigns/${created.id}`, { token: admin })).status).toBe(404);
  });

  it("records each admin's change of a campaign in the audit log: created, changed, scheduled, paused, resumed, cancelled, deleted", async () => {
    const tag = newTag();
    await contact({ name: 'Audited', tags: [tag], attributes: { city: 'Rome' } });
    const created = await createCampaign({ audience: { tags: [tag] }, scheduled_at: '2099-01-01T09:00:00Z' });
    expect((await t.request('PATCH', `/api/v1/campaigns/${created.id}`, { token: admin, body: { name: 'Audited again' } })).status).toBe(
      200,
    );
    // Scheduled without a body: the campaign's own time (far off, so nothing is sent meanwhile).
    const scheduled = await t.request('POST', `/api/v1/campaigns/${created.id}/schedule`, { token: admin });
    expect([scheduled.status, scheduled.body.status, scheduled.body.scheduled_at]).toEqual([200, 'scheduled', '2099-01-01T09:00:00.000Z']);
    for (const action of ['pause', 'resume', 'cancel'] as const) expect((await act(created.id, action)).status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/campaigns/${created.id}`, { token: admin })).status).toBe(204);
    const entries = (await t.request('GET', '/api/v1/audit-log?limit=100', { token: admin })).body.data as Json[];
    const ofCampaign = entries.filter((entry) => entry.target === created.id).reverse();
    const me = (await t.request('GET', '/api/v1/me', { token: admin })).body;
    expect(ofCampaign.map((entry) => [entry.action, (entry.actor as Json).email])).toEqual(
      ['created', 'updated', 'scheduled', 'paused', 'resumed', 'cancelled', 'deleted'].map((action) => [`campaign.${action}`, me.email]),
    );
    expect(ofCampaign[1].details).toEqual({ changed: ['name'] });
  });

  it('keeps the totals right when statuses arrive out of order, and counts a reply once', async () => {
    const tag = newTag();
    const one = await contact({ name: 'Sam', tags: [tag], attributes: { city: 'Rome' } });
    const created = await createCampaign({ audience: { tags: [tag] } });
    await act(created.id, 'schedule');
    await finished(created.id);
    const [recipient] = await recipients(created.id);
    const wamid = await channelIdOf(recipient.message_id as string);
    const deliver = async (status: 'delivered' | 'read') => {
      const answer = await t.request('POST', '/api/webhooks/messaging', { body: statusWebhook(wamid, one.phone.slice(1), status) });
      expect(answer.status).toBe(200);
    };
    await deliver('read');
    await deliver('delivered');
    await totalsBecome(created.id, { recipients: 1, queued: 0, sent: 1, delivered: 1, read: 1, replied: 0, failed: 0, skipped: 0 });
    await customerWrites(t, { phone: one.phone.slice(1), text: 'Thanks!' });
    await customerWrites(t, { phone: one.phone.slice(1), text: 'When does it arrive?' });
    await totalsBecome(created.id, { recipients: 1, queued: 0, sent: 1, delivered: 1, read: 1, replied: 1, failed: 0, skipped: 0 });
    expect((await recipients(created.id, '&status=replied')).map((r) => (r.contact as Json).id)).toEqual([one.id]);
    expect(await recipients(created.id, '&status=read')).toEqual([]);
    // The customer's answer opens the conversation the campaign opened closed: now it is work for the team.
    const [conversation] = (await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(one.phone)}`, { token: admin })).body.data;
    expect(conversation.status).toBe('open');
  });

  it('counts as a reply a message written within the week after the campaign message, not one written later', async () => {
    const tag = newTag();
    const within = await contact({ name: 'Wanda', tags: [tag], attributes: { city: 'Vienna' } });
    const later = await contact({ name: 'Lars', tags: [tag], attributes: { city: 'Oslo' } });
    const created = await createCampaign({ audience: { tags: [tag] } });
    await act(created.id, 'schedule');
    await finished(created.id);
    await totalsBecome(created.id, { recipients: 2, queued: 0, sent: 2, delivered: 0, read: 0, replied: 0, failed: 0, skipped: 0 });
    // Lars's campaign message as if sent eight days ago: the message and its conversation's mark of it.
    const [laters] = (await recipients(created.id)).filter((r) => (r.contact as Json).id === later.id);
    const laterMessageId = parsePublicId('msg', laters.message_id as string);
    await t.sql(`UPDATE messages SET created_at = created_at - interval '8 days' WHERE id = $1`, [laterMessageId]);
    await t.sql(
      `UPDATE conversations SET last_campaign_at = last_campaign_at - interval '8 days'
        WHERE id = (SELECT conversation_id FROM messages WHERE id = $1)`,
      [laterMessageId],
    );
    await customerWrites(t, { phone: later.phone.slice(1), text: 'Is the offer still on?' });
    await customerWrites(t, { phone: within.phone.slice(1), text: 'I will take it' });
    expect((await recipients(created.id, '&status=replied')).map((r) => (r.contact as Json).id)).toEqual([within.id]);
  });

  it('counts a reply in the conversation a merge of contacts moved the campaign message into', async () => {
    const tag = newTag();
    const sent = await contact({ name: 'Mira', tags: [tag], attributes: { city: 'Graz' } });
    const kept = await contact({ name: 'Mira (her other number)' });
    await customerWrites(t, { phone: kept.phone.slice(1), text: 'Hello from my other number' });
    const created = await createCampaign({ audience: { tags: [tag] } });
    await act(created.id, 'schedule');
    await finished(created.id);
    await totalsBecome(created.id, { recipients: 1, queued: 0, sent: 1, delivered: 0, read: 0, replied: 0, failed: 0, skipped: 0 });
    const merged = await t.request('POST', `/api/v1/contacts/${kept.id}/merge`, { token: admin, body: { from: sent.id } });
    expect(merged.status).toBe(200);
    await customerWrites(t, { phone: kept.phone.slice(1), text: 'Yes, I want the offer' });
    await totalsBecome(created.id, { recipients: 1, queued: 0, sent: 1, delivered: 0, read: 0, replied: 1, failed: 0, skipped: 0 });
  });

  async function channelIdOf(messageId: string): Promise<string> {
    const rows = await t.sql<{ channel_message_id: string }>('SELECT channel_message_id FROM messages WHERE id = $1', [
      parsePublicId('msg', messageId),
    ]);
    return rows[0].channel_message_id;
  }

  it('opts out a recipient who answers STOP, and the next campaign skips them', async () => {
    const tag = newTag();
    const one = await contact({ name: 'Tom', tags: [tag], attributes: { city: 'Rome' } });
    const first = await createCampaign({ audience: { tags: [tag] } });
    await act(first.id, 'schedule');
    await finished(first.id);
    await customerWrites(t, { phone: one.phone.slice(1), text: 'STOP' });
    expect((await t.request('GET', `/api/v1/contacts/${one.id}`, { token: admin })).body.opted_out).toBe(true);
    const second = await createCampaign({ audience: { contact_ids: [one.id] } });
    await act(second.id, 'schedule');
    await finished(second.id);
    expect(await recipients(second.id)).toEqual([expect.objectContaining({ status: 'skipped', reason: 'opted out' })]);
    expect(sendsTo(one.phone)).toHaveLength(1);
  });

  it('retries a recipient the channel asks to slow down for (130429), and sends it once', async () => {
    const tag = newTag();
    const one = await contact({ name: 'Uma', tags: [tag], attributes: { city: 'Rome' } });
    graph.failNext(one.phone, refusal(130429, 'Rate limit hit'), refusal(130429, 'Rate limit hit'));
    const created = await createCampaign({ audience: { tags: [tag] } });
    await act(created.id, 'schedule');
    await finished(created.id);
    expect(graph.sendsTo(one.phone)).toHaveLength(3);
    expect(await recipients(created.id)).toEqual([expect.objectContaining({ status: 'sent' })]);
  });

  it('starts a scheduled campaign at its time, not before', async () => {
    const tag = newTag();
    const one = await contact({ name: 'Vic', tags: [tag], attributes: { city: 'Rome' } });
    const at = new Date(Date.now() + 2500).toISOString();
    const created = await createCampaign({ audience: { tags: [tag] }, scheduled_at: at });
    expect((await act(created.id, 'schedule')).body).toMatchObject({ status: 'scheduled', scheduled_at: at });
    const done = await finished(created.id);
    expect(new Date(done.started_at!).getTime()).toBeGreaterThanOrEqual(new Date(at).getTime());
    expect(sendsTo(one.phone)).toEqual([expect.objectContaining({ at: expect.any(Number) })]);
    expect(sendsTo(one.phone)[0].at).toBeGreaterThanOrEqual(new Date(at).getTime());
  });

  it('previews the audience size and the message three contacts would read, filled, before anything is saved', async () => {
    const tag = newTag();
    await contact({ name: 'Wes', tags: [tag], attributes: { city: 'Rome' } });
    await contact({ name: 'Xia', tags: [tag] });
    const out = await contact({ name: 'Yan', tags: [tag], attributes: { city: 'Rome' } });
    await t.request('PATCH', `/api/v1/contacts/${out.id}`, { token: admin, body: { opted_out: true } });
    await contact({ name: 'Zoe', tags: [tag], attributes: { city: 'Oslo' } });
    const answer = await t.request('POST', '/api/v1/campaigns/preview', {
      token: admin,
      body: { inbox_id: DEFAULT_INBOX, template: TEMPLATE, audience: { tags: [tag] } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      audience: { contacts: 4, opted_out: 1, blocked: 0 },
      samples: [
        expect.objectContaining({
          contact: expect.objectContaining({ name: 'Wes' }),
          text: 'Hi Wes, your order from Rome has shipped.',
          skipped: null,
        }),
        expect.objectContaining({
          contact: expect.objectContaining({ name: 'Xia' }),
          text: null,
          skipped: 'no value for {{contact.attributes.city}}',
        }),
        expect.objectContaining({ contact: expect.objectContaining({ name: 'Yan' }), text: null, skipped: 'opted out' }),
      ],
    });
  });

  it('lists the recipients as CSV with their status, reason and code', async () => {
    const tag = newTag();
    const ok = await contact({ name: '=Ok', tags: [tag], attributes: { city: 'Rome' } });
    await contact({ name: 'Skip', tags: [tag] });
    const created = await createCampaign({ audience: { tags: [tag] } });
    await act(created.id, 'schedule');
    await finished(created.id);
    const answer = await t.request('GET', `/api/v1/campaigns/${created.id}/recipients.csv`, { token: admin });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('text/csv');
    const rows = parse(answer.text, { columns: true }) as Record<string, string>[];
    expect(rows).toEqual([
      expect.objectContaining({
        contact_id: ok.id,
        name: "'=Ok",
        phone: ok.phone,
        status: 'sent',
        reason: '',
        message_id: expect.stringMatching(/^msg_/),
      }),
      expect.objectContaining({ name: 'Skip', status: 'skipped', reason: 'no value for {{contact.attributes.city}}', message_id: '' }),
    ]);
    const skippedOnly = parse(
      (await t.request('GET', `/api/v1/campaigns/${created.id}/recipients.csv?status=skipped`, { token: admin })).text,
      {
        columns: true,
      },
    );
    expect(skippedOnly).toHaveLength(1);
  });

  it('refuses what cannot be sent: a bad placeholder or audience (400), an unknown template (422), a change of what it sends once started (409)', async () => {
    const bad = (body: Json) =>
      t.request('POST', '/api/v1/campaigns', {
        token: admin,
        body: { name: 'X', inbox_id: DEFAULT_INBOX, template: TEMPLATE, audience: { tags: ['x'] }, ...body },
      });
    const placeholder = await bad({
      template: {
        ...TEMPLATE,
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: '{{contact.email}}' },
              { type: 'text', text: 'x' },
            ],
          },
        ],
      },
    });
    expect(placeholder.status).toBe(400);
    expect(placeholder.body.error).toContain('{{contact.email}} names nothing a contact has');
    const empty = await bad({ audience: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain('audience must name contacts');
    const rate = await bad({ rate_per_second: 0 });
    expect(rate.status).toBe(400);
    expect(rate.body.error).toContain('rate_per_second');
    const unknown = await bad({ template: { name: 'no_such_template', language: 'en_US' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toContain('no_such_template');
    const inbox = await bad({ inbox_id: 'inb_00000000000070008000000000000999' });
    expect(inbox.status).toBe(422);

    const tag = newTag();
    await contact({ name: 'Al', tags: [tag], attributes: { city: 'Rome' } });
    const created = await createCampaign({ audience: { tags: [tag] } });
    expect(
      (await t.request('PATCH', `/api/v1/campaigns/${created.id}`, { token: admin, body: { audience: { tags: ['y'] } } })).status,
    ).toBe(200);
    await t.request('PATCH', `/api/v1/campaigns/${created.id}`, { token: admin, body: { audience: { tags: [tag] } } });
    await act(created.id, 'schedule');
    await finished(created.id);
    const change = await t.request('PATCH', `/api/v1/campaigns/${created.id}`, { token: admin, body: { template: TEMPLATE } });
    expect(change.status).toBe(409);
    expect((await act(created.id, 'schedule')).status).toBe(409);
    const agent = await t.createUser({ role: 'agent' });
    expect((await t.request('GET', '/api/v1/campaigns', { token: agent.token })).status).toBe(403);
  });

  it("carries campaign events on an admin's stream and not on an agent's, who still sees the messages it sends", async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${(await t.app.getUrl()).replace('[::1]', '127.0.0.1')}/api/v1/events/stream`;
    const agent = await t.createUser({ role: 'agent' });
    const adminStream = await SseClient.connect(url, { authorization: `Bearer ${admin}` });
    const agentStream = await SseClient.connect(url, { authorization: `Bearer ${agent.token}` });
    try {
      const tag = newTag();
      await contact({ name: 'Streamed', tags: [tag], attributes: { city: 'Rome' } });
      const created = await createCampaign({ audience: { tags: [tag] } });
      await act(created.id, 'schedule');
      await finished(created.id);
      const campaignEvents = (client: SseClient) =>
        client.events.filter((e) => e.event?.startsWith('campaign.') && e.data.includes(created.id));
      const sentEvents = (client: SseClient) => client.events.filter((e) => e.event === 'message.sent' && e.data.includes('Streamed'));
      await adminStream.until((client) => campaignEvents(client).some((e) => e.data.includes('"completed"')));
      await agentStream.until((client) => sentEvents(client).length > 0);
      expect(campaignEvents(agentStream)).toEqual([]);
    } finally {
      await adminStream.close();
      await agentStream.close();
    }
  });

  it('refuses a template whose header media is an upload (422) and a made-up recipients cursor (400)', async () => {
    const upload = await t.request('POST', '/api/v1/campaigns', {
      token: admin,
      body: {
        name: 'Upload',
        inbox_id: DEFAULT_INBOX,
        audience: { tags: ['x'] },
        template: { ...TEMPLATE, components: [{ type: 'header', parameters: [{ type: 'image', image: { media_id: 'med_0123' } }] }] },
      },
    });
    expect(upload.status).toBe(422);
    expect(upload.body.error).toContain('header media must be a link');
    const tag = newTag();
    const created = await createCampaign({ audience: { tags: [tag] } });
    const cursor = Buffer.from(JSON.stringify(['3000000000'])).toString('base64url');
    const answer = await t.request('GET', `/api/v1/campaigns/${created.id}/recipients?cursor=${cursor}`, { token: admin });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('cursor is not a cursor returned by this list');
    expect((await t.request('GET', `/api/v1/campaigns/${created.id}/recipients`, { token: admin })).status).toBe(200);
  });

  it('lists campaigns newest first with their totals, and tells their changes as campaign events', async () => {
    const tag = newTag();
    await contact({ name: 'Bo', tags: [tag], attributes: { city: 'Rome' } });
    const created = await createCampaign({ audience: { tags: [tag] } });
    await act(created.id, 'schedule');
    await finished(created.id);
    const list = (await t.request('GET', '/api/v1/campaigns?limit=1', { token: admin })).body;
    expect(list.data[0]).toMatchObject({ id: created.id });
    expect(list.next_cursor).not.toBeNull();
    const statuses = (await t.events('campaign.updated'))
      .filter((event) => (event.data.campaign as Json).id === created.id)
      .map((event) => (event.data.campaign as Json).status);
    expect(statuses[0]).toBe('scheduled');
    expect(statuses).toContain('running');
    expect(statuses).toContain('completed');
    expect((await t.events('campaign.created')).some((event) => (event.data.campaign as Json).id === created.id)).toBe(true);
  });
});

describeWithPostgresAndRedis('a campaign on two replicas', () => {
  let graph: FakeGraphApi;
  let replicas: Awaited<ReturnType<typeof startTwoInstances>>;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    replicas = await startTwoInstances({ ...graph.channelEnv, MESSAGING_RETRY_SCHEDULE: '50ms,50ms,50ms' });
  });
  afterAll(async () => {
    await replicas.close();
    await graph.close();
  });

  it('sends each recipient once at the pace, whichever replica runs each step and each send', async () => {
    const { a, b } = replicas;
    const admin = await a.adminToken();
    const phones: string[] = [];
    for (let i = 0; i < 24; i += 1) {
      const phone = `+1415666${String(1000 + i)}`;
      await a.request('POST', '/api/v1/contacts', { token: admin, body: { phone, name: `Replica ${i}`, tags: ['replicas'] } });
      phones.push(phone);
    }
    const created = await a.request('POST', '/api/v1/campaigns', {
      token: admin,
      body: {
        name: 'Replicas',
        inbox_id: DEFAULT_INBOX,
        template: { name: 'hello_world', language: 'en_US' },
        audience: { tags: ['replicas'] },
        rate_per_second: 8,
      },
    });
    expect(created.status).toBe(201);
    // Scheduled through one replica, watched through the other.
    expect(
      (await b.request('POST', `/api/v1/campaigns/${created.body.id}/schedule`, { token: await b.adminToken(), body: {} })).status,
    ).toBe(200);
    await eventually(async () => {
      expect((await b.request('GET', `/api/v1/campaigns/${created.body.id}`, { token: await b.adminToken() })).body.status).toBe(
        'completed',
      );
    }, 30_000);
    expect(phones.map((phone) => graph.sendsTo(phone).length)).toEqual(phones.map(() => 1));
    const arrivals = phones.map((phone) => graph.sendsTo(phone)[0].at).sort((x, y) => x - y);
    for (let i = 8; i < arrivals.length; i += 1) expect(arrivals[i] - arrivals[i - 8]).toBeGreaterThanOrEqual(1000);
  });
});

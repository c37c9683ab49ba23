import { hubSignature, messagesWebhook } from '../scripts/lib/channel-webhook';
import { parsePublicId, toPublicId } from '../src/common/ids';
import { DEFAULT_INBOX_ID } from '../src/common/default-inbox';
import { channelMessage, eventually } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { startTestApp, TestApp } from './support/test-app';

const DEFAULT_INBOX = toPublicId('inb', DEFAULT_INBOX_ID);
interface PricingRow {
  inbox_id: string;
  category: string;
  type: string | null;
  pricing_model: string | null;
  messages: number;
}

const SALES_NUMBER = '600000000000001';
const SALES_SECRET = 'sales-app-secret';
const SUPPORT_SECRET = 'support-app-secret';

describe('the pricing report', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  let sales: string;
  let lastPhone = 17185550000 + Math.floor(Math.random() * 9000);

  /** A signed webhook body of one change to a number. */
  const deliver = async (number: string, secret: string, value: Record<string, unknown>) => {
    const payload = JSON.stringify(messagesWebhook(value, { phoneNumberId: number }));
    const answer = await t.request('POST', '/api/webhooks/messaging', {
      payload,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, secret) },
    });
    expect(answer.status).toBe(200);
  };

  /**
   * A customer writes to the number, is answered once, and the channel prices the answer on its
   * status (`pricing` null: a status without pricing); answers the answer's message id.
   */
  const pricedAnswer = async (number: string, secret: string, pricing: Record<string, unknown> | null) => {
    const phone = String((lastPhone += 1));
    await deliver(number, secret, {
      contacts: [{ wa_id: phone, profile: { name: 'Priced Customer' } }],
      messages: [channelMessage({ from: phone, payload: { body: 'Hello' } })],
    });
    const [conversation] = (await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(`+${phone}`)}`, { token: admin })).body
      .data;
    const sent = await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
      token: admin,
      body: { type: 'text', text: 'Hi' },
    });
    const wamid = await eventually(async () => {
      const [row] = await t.sql<{ channel_message_id: string | null }>('SELECT channel_message_id FROM messages WHERE id = $1', [
        parsePublicId('msg', sent.body.id),
      ]);
      expect(row.channel_message_id).toEqual(expect.any(String));
      return row.channel_message_id!;
    });
    await deliver(number, secret, {
      statuses: [
        {
          id: wamid,
          status: 'delivered',
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: phone,
          ...(pricing ? { pricing } : {}),
        },
      ],
    });
    return sent.body.id;
  };
  const report = async (query = '', token = admin) => {
    const answer = await t.request('GET', `/api/v1/reports/pricing${query}`, { token });
    return answer as typeof answer & { body: { data: PricingRow[]; error?: string } };
  };

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({ env: { ...graph.channelEnv, MESSAGING_APP_SECRET: SUPPORT_SECRET } });
    admin = await t.adminToken();
    const created = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: 'Sales', phone_number_id: SALES_NUMBER, access_token: 'sales-token', app_secret: SALES_SECRET },
    });
    sales = created.body.id;
    const support = '106540352242922';
    const marketing = { billable: true, pricing_model: 'PMP', category: 'marketing', type: 'regular' };
    const service = { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' };
    await pricedAnswer(support, SUPPORT_SECRET, marketing);
    await pricedAnswer(support, SUPPORT_SECRET, marketing);
    await pricedAnswer(support, SUPPORT_SECRET, service);
    await pricedAnswer(support, SUPPORT_SECRET, null);
    await pricedAnswer(SALES_NUMBER, SALES_SECRET, { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' });
    await pricedAnswer(SALES_NUMBER, SALES_SECRET, {
      billable: false,
      pricing_model: 'PMP',
      category: 'marketing',
      type: 'free_entry_point',
    });
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  it("counts this month's priced outbound messages per inbox, category, type and model, and leaves out those never priced", async () => {
    const answer = await report();
    expect(answer.status).toBe(200);
    const byInbox = (inbox: string) => answer.body.data.filter((row) => row.inbox_id === inbox);
    expect(byInbox(DEFAULT_INBOX)).toEqual([
      { inbox_id: DEFAULT_INBOX, category: 'marketing', type: 'regular', pricing_model: 'PMP', messages: 2 },
      { inbox_id: DEFAULT_INBOX, category: 'service', type: 'free_customer_service', pricing_model: 'PMP', messages: 1 },
    ]);
    expect(byInbox(sales)).toEqual([
      { inbox_id: sales, category: 'marketing', type: 'free_entry_point', pricing_model: 'PMP', messages: 1 },
      { inbox_id: sales, category: 'utility', type: 'regular', pricing_model: 'PMP', messages: 1 },
    ]);
  });

  it('counts only the period asked for: from inclusive, to exclusive', async () => {
    const id = await pricedAnswer(SALES_NUMBER, SALES_SECRET, {
      billable: true,
      pricing_model: 'PMP',
      category: 'authentication',
      type: 'regular',
    });
    await t.sql("UPDATE messages SET created_at = '2025-03-10T12:00:00Z' WHERE id = $1", [parsePublicId('msg', id)]);
    const authentication = (query: string) =>
      report(query).then((answer) => answer.body.data.filter((row) => row.category === 'authentication'));
    expect(await authentication('')).toEqual([]);
    expect(await authentication('?from=2025-03-01&to=2025-04-01')).toEqual([
      { inbox_id: sales, category: 'authentication', type: 'regular', pricing_model: 'PMP', messages: 1 },
    ]);
    expect(await authentication('?from=2025-03-10T12:00:00.001Z&to=2025-04-01')).toEqual([]);
    expect(await authentication('?from=2025-03-01&to=2025-03-10T12:00:00Z')).toEqual([]);
  });

  it('keeps an agent to the inboxes they work, and filters by inbox_id', async () => {
    const agent = await t.createUser({ role: 'agent', inbox_ids: [sales] });
    const theirs = await report('', agent.token);
    expect(theirs.status).toBe(200);
    expect(new Set(theirs.body.data.map((row) => row.inbox_id))).toEqual(new Set([sales]));
    const elsewhere = await report(`?inbox_id=${DEFAULT_INBOX}`, agent.token);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual({ error: 'Inbox not found' });
    expect((await report(`?inbox_id=${sales}`, agent.token)).body.data.length).toBeGreaterThan(0);
    const one = await report(`?inbox_id=${sales}`);
    expect(one.body.data.length).toBeGreaterThan(0);
    expect(one.body.data.every((row) => row.inbox_id === sales)).toBe(true);
  });

  it.each([
    ['?from=2026-02-01&to=2026-01-01', 'from must be before to'],
    ['?from=yesterday', 'from must be an ISO 8601 date or date-time'],
    ['?from=', 'from must be an ISO 8601 date or date-time'],
    ['?to=', 'to must be an ISO 8601 date or date-time'],
    ['?inbox_id=', 'inbox_id must be an inbox id'],
    ['?from=2026-W05', 'from must be an ISO 8601 date or date-time'],
    ['?from=20260101T1000', 'from must be an ISO 8601 date or date-time'],
    ['?to=2026-13-45', 'to must be an ISO 8601 date or date-time'],
    ['?inbox_id=inb_x', 'inbox_id must be an inbox id'],
  ])('refuses %s with 400 naming the problem', async (query, error) => {
    const answer = await report(query);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain(error);
  });

  it('takes a whole leap year, and ten years', async () => {
    expect((await report('?from=2024-01-01&to=2025-01-01')).status).toBe(200);
    expect((await report('?from=2016-01-01&to=2026-01-01')).status).toBe(200);
  });
});

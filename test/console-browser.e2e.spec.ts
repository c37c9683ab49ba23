import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  DESKTOP,
  describeWithBrowser,
  launchBrowser,
  listen,
  logIn,
  newPage,
  openWhenReady,
  PHONE,
  seriousAccessibilityViolations,
} from './support/browser';
import { parsePublicId } from '../src/common/ids';
import { totpCodeOf } from '../src/two-factor/totp';
import { messagesWebhook } from '../scripts/lib/channel-webhook';
import { eventually, newWamid } from './support/channel';
import { MESSAGE_KINDS, messageWebhook } from './support/channel-fixtures';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { SseClient } from './support/sse-client';
import { TcpProxy } from './support/tcp-proxy';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

/** A PNG of one pixel: the smallest image the upload's type check takes. */
const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A template with one body parameter, as the Graph API lists it. */
const ORDER_UPDATE = {
  name: 'order_update',
  parameter_format: 'POSITIONAL',
  components: [{ type: 'BODY', text: 'Your order {{1}} is on its way.' }],
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  id: '1192339204654488',
};

describeWithBrowser('the agent console in Chromium', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let baseUrl: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[][] = [];

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    graph.templates = [...graph.templates, ORDER_UPDATE];
    t = await startTestApp({
      env: {
        MESSAGING_ACCESS_TOKEN: 'graph-token',
        MESSAGING_PHONE_NUMBER_ID: '106540352242922',
        MESSAGING_BUSINESS_ACCOUNT_ID: '102290129340398',
        MESSAGING_API_BASE_URL: graph.baseUrl,
        MESSAGING_RETRY_SCHEDULE: '50ms,50ms,50ms',
        MESSAGING_WEBHOOK_VERIFY_TOKEN: 'browser-verify-token',
      },
    });
    baseUrl = await listen(t);
    browser = await launchBrowser();
  });

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    // Every page of the test ran without an exception, a refused resource or a CSP violation.
    expect(problems.splice(0).flat()).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await graph?.close();
  });

  async function open(viewport = DESKTOP): Promise<Page> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const { page, problems: found } = await newPage(context);
    problems.push(found);
    return page;
  }

  async function openAs(email: string, password: string): Promise<Page> {
    const page = await open();
    await logIn(page, baseUrl, email, password);
    return page;
  }

  const row = (page: Page, name: string) => page.getByRole('link', { name: new RegExp(`^${name}`) });

  it('shows a customer message posted to the channel webhook in an open console, without a reload', async () => {
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await page.getByText('No conversation here.').or(page.locator('.conversation-row').first()).waitFor();

    await customerWrites(t, { name: 'Maria Live', text: 'Is my order shipped?' });

    const conversation = row(page, 'Maria Live');
    await conversation.waitFor();
    expect(await conversation.locator('.unread-badge').textContent()).toBe('1 unread');
    expect(await conversation.locator('.row-preview').textContent()).toBe('Is my order shipped?');
    // It came first: the list is ordered by the latest message.
    expect(await page.locator('.conversation-row .row-name').first().textContent()).toBe('Maria Live');
  });

  it('sends a text, a template and an image that the Graph API receives', async () => {
    const { phone } = await customerWrites(t, { name: 'Reply Customer', text: 'Hello, anyone there?' });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Reply Customer').click();
    await page.getByRole('log', { name: 'Messages' }).getByText('Hello, anyone there?').waitFor();

    const typingBefore = graph.typingIndicators().length;
    await page.getByLabel('Message (/ for canned responses and macros)').fill('We are here: your order left today.');
    // Writing shows the customer "typing…".
    await eventually(async () => expect(graph.typingIndicators().length).toBe(typingBefore + 1));
    await page.keyboard.press('Enter');
    await eventually(async () => expect(graph.sendsTo(phone).map((r) => r.body?.type)).toContain('text'));
    expect(graph.sendsTo(phone).find((r) => r.body?.type === 'text')?.body?.text).toMatchObject({
      body: 'We are here: your order left today.',
    });

    await page.getByRole('tab', { name: 'Template' }).click();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'order_update (en_US)' });
    await page.getByLabel('Body {{1}}').fill('#1042');
    await page.getByRole('button', { name: 'Send template' }).click();
    await eventually(async () => expect(graph.sendsTo(phone).map((r) => r.body?.type)).toContain('template'));
    expect(graph.sendsTo(phone).find((r) => r.body?.type === 'template')?.body?.template).toMatchObject({
      name: 'order_update',
      language: { code: 'en_US' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: '#1042' }] }],
    });

    await page.getByRole('tab', { name: 'Reply' }).click();
    await page.getByLabel('Attach a file').setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
    await page.getByLabel('Message (/ for canned responses and macros)').fill('Your receipt');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await eventually(async () => expect(graph.sendsTo(phone).map((r) => r.body?.type)).toContain('image'));
    expect(graph.sendsTo(phone).find((r) => r.body?.type === 'image')?.body?.image).toMatchObject({ caption: 'Your receipt' });
    // The thread shows each reply, with its tick.
    await page.getByRole('log', { name: 'Messages' }).getByText('We are here: your order left today.').waitFor();
    await page.locator('.bubble-outbound .tick').first().waitFor();
  });

  it('lets an invited agent accept through the link and see the inbox', async () => {
    const admin = await openAs(ADMIN.email, ADMIN.password);
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.getByLabel('E-mail').fill('new.agent@example.com');
    await admin.getByLabel('Name').fill('New Agent');
    await admin.getByRole('button', { name: 'Invite' }).click();
    const link = await admin.locator('.invite-url').textContent();
    expect(link).toMatch(/\/accept-invite\?token=/);

    const invited = await open();
    const { pathname, search } = new URL(link!);
    await invited.goto(`${baseUrl}${pathname}${search}`);
    await invited.getByLabel('Password').fill('a-new-agent-password');
    await invited.getByRole('button', { name: 'Accept the invitation' }).click();
    await invited.getByRole('navigation', { name: 'Main' }).waitFor();
    await invited.getByRole('link', { name: 'New Agent' }).waitFor();
    await invited.getByRole('tab', { name: /Mine/ }).waitFor();
    // Agents do not see the admin pages.
    expect(await invited.getByRole('link', { name: 'Users' }).count()).toBe(0);
  });

  it('updates unread markers and counts as two agents work the same conversation', async () => {
    const agent = await t.createUser({ name: 'Second Agent' });
    const first = await openAs(ADMIN.email, ADMIN.password);
    const second = await openAs(agent.email, agent.password);
    for (const page of [first, second]) await page.getByRole('tab', { name: /All open/ }).click();
    const unassignedBefore = await tabCount(second, 'Unassigned');

    await customerWrites(t, { name: 'Two Agents', text: 'Who will help me?' });
    for (const page of [first, second]) await row(page, 'Two Agents').locator('.unread-badge', { hasText: '1 unread' }).waitFor();
    await eventually(async () => expect(await tabCount(second, 'Unassigned')).toBe(unassignedBefore + 1), 20_000);

    // The first agent opens it: read for them, still unread for the other.
    await row(first, 'Two Agents').click();
    await first.getByRole('log', { name: 'Messages' }).getByText('Who will help me?').waitFor();
    await row(first, 'Two Agents').locator('.unread-badge').waitFor({ state: 'detached' });
    expect(await row(second, 'Two Agents').locator('.unread-badge').textContent()).toBe('1 unread');

    // Assigned to the first agent: their Mine count grows, the other's Unassigned shrinks.
    const mineBefore = await tabCount(first, 'Mine');
    await first.getByRole('button', { name: 'Assign to me' }).click();
    await eventually(async () => expect(await tabCount(first, 'Mine')).toBe(mineBefore + 1));
    await eventually(async () => expect(await tabCount(second, 'Unassigned')).toBe(unassignedBefore), 20_000);
  });

  it('keeps the Unread only count right when a customer writes again after a read', async () => {
    const agent = await t.createUser({ name: 'Counting Agent' });
    const page = await openAs(agent.email, agent.password);
    const unread = page.locator('label', { hasText: 'Unread only' }).locator('.count');
    await unread.waitFor();
    const before = Number(await unread.textContent());
    const { phone } = await customerWrites(t, { name: 'Read First', text: 'Anyone there?' });
    await eventually(async () => expect(Number(await unread.textContent())).toBe(before + 1), 20_000);

    await row(page, 'Read First').click();
    await page.getByRole('log', { name: 'Messages' }).getByText('Anyone there?').waitFor();
    await eventually(async () => expect(Number(await unread.textContent())).toBe(before), 20_000);
    // Back to the list, and the customer writes again: unread again, and counted again.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('log', { name: 'Messages' }).waitFor({ state: 'detached' });
    await customerWrites(t, { phone: phone.slice(1), text: 'Hello again?' });
    await row(page, 'Read First').locator('.unread-badge', { hasText: '1 unread' }).waitFor();
    await eventually(async () => expect(Number(await unread.textContent())).toBe(before + 1), 20_000);
  });

  it("shows a conversation assigned to an agent while they look at Mine with the customer's messages they have not read", async () => {
    const agent = await t.createUser({ name: 'Mine Agent' });
    const { id, phone } = await customerWrites(t, { name: 'Handed Over', text: 'First question' });
    await customerWrites(t, { phone: phone.slice(1), text: 'Second question' });
    const page = await openAs(agent.email, agent.password);
    await page.getByRole('tab', { name: /^Mine/ }).click();
    // The tab's count came on the stream: it has its place, and the list was read.
    await page.getByRole('tab', { name: /^Mine\s*\d+/ }).waitFor();
    await page.getByText('No conversation here.').waitFor();

    const assigned = await t.request('PATCH', `/api/v1/conversations/${id}`, {
      token: await t.adminToken(),
      body: { assigned_to: agent.id },
    });
    expect(assigned.status).toBe(200);
    await row(page, 'Handed Over').locator('.unread-badge', { hasText: '2 unread' }).waitFor();
  });

  it('keeps showing a conversation the customer reopened when the answer to closing it arrives after', async () => {
    const { id, phone } = await customerWrites(t, { name: 'Late Answer', text: 'One more thing' });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Late Answer').click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('One more thing').waitFor();

    // The answer to closing is held until the customer's next message has reopened it on the page.
    let closed!: () => void;
    const closedOnServer = new Promise<void>((resolve) => (closed = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(`**/api/v1/conversations/${id}`, async (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      const response = await route.fetch();
      closed();
      await held;
      await route.fulfill({ response });
    });
    await page.getByRole('button', { name: 'Close' }).click();
    await closedOnServer;
    await customerWrites(t, { phone: phone.slice(1), text: 'Wait, it is not solved' });
    await log.getByText('Wait, it is not solved').waitFor();
    const answered = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().endsWith(id));
    release();
    await answered;
    // Another customer's message comes after the answer: once its row shows, the answer has been applied.
    await customerWrites(t, { name: 'Marker Customer', text: 'Hello' });
    await row(page, 'Marker Customer').waitFor();

    expect(await page.getByRole('button', { name: 'Close' }).count()).toBe(1);
    expect(await row(page, 'Late Answer').count()).toBe(1);
  });

  it('keeps a message that arrives while the list is read again, when the page was read before it', async () => {
    const { phone } = await customerWrites(t, { name: 'Busy Reader', text: 'First words' });
    const taken = await customerWrites(t, { name: 'Taken Elsewhere', text: 'Mine now' });
    const admin = await t.adminToken();
    const me = await t.request('GET', '/api/v1/me', { token: admin });
    expect(
      (await t.request('PATCH', `/api/v1/conversations/${taken.id}`, { token: admin, body: { assigned_to: me.body.id } })).status,
    ).toBe(200);
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Busy Reader').getByText('First words').waitFor();
    await row(page, 'Taken Elsewhere').waitFor();

    // The Unassigned tab's page is read on the server at once, and reaches the page after the customer's next message.
    let read!: () => void;
    const readOnServer = new Promise<void>((resolve) => (read = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === '/api/v1/conversations' && url.searchParams.get('assigned_to') === 'none',
      async (route) => {
        const response = await route.fetch();
        read();
        await held;
        await route.fulfill({ response });
      },
    );
    await page.getByRole('tab', { name: /Unassigned/ }).click();
    await readOnServer;
    await customerWrites(t, { phone: phone.slice(1), text: 'Second words' });
    await row(page, 'Busy Reader').getByText('Second words').waitFor();
    release();
    // The assigned conversation leaves the list when the page is applied.
    await page.locator('.conversation-row', { hasText: 'Taken Elsewhere' }).waitFor({ state: 'detached' });

    expect(await row(page, 'Busy Reader').getByText('Second words').count()).toBe(1);
    expect(await row(page, 'Busy Reader').locator('.unread-badge').textContent()).toBe('2 unread');
  });

  it('keeps a delivery the stream showed while the thread was read, when the thread was read before it', async () => {
    const { id, phone } = await customerWrites(t, { name: 'Ticked Customer', text: 'Did you get it?' });
    const admin = await t.adminToken();
    const sent = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
      token: admin,
      body: { type: 'text', text: 'Yes, on its way' },
    });
    expect(sent.status).toBe(201);
    const wamid = await eventually(async () => {
      const [message] = await t.sql<{ channel_message_id: string | null }>(
        "SELECT channel_message_id FROM messages WHERE text = 'Yes, on its way' ORDER BY created_at DESC LIMIT 1",
      );
      expect(message.channel_message_id).toEqual(expect.any(String));
      return message.channel_message_id!;
    });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();

    // The thread's messages are read on the server at once, and reach the page after the delivery's event.
    let read!: () => void;
    const readOnServer = new Promise<void>((resolve) => (read = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === `/api/v1/conversations/${id}/messages`,
      async (route) => {
        const response = await route.fetch();
        read();
        await held;
        await route.fulfill({ response });
      },
      { times: 1 },
    );
    await row(page, 'Ticked Customer').click();
    await readOnServer;
    const delivered = await t.request('POST', '/api/webhooks/messaging', {
      body: messagesWebhook(
        { statuses: [{ id: wamid, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: phone.slice(1) }] },
        { phoneNumberId: '106540352242922' },
      ),
    });
    expect(delivered.status).toBe(200);
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByLabel('Delivered').waitFor();
    release();
    // The customer's message comes with the page only: once it shows, the page has been applied.
    await log.getByText('Did you get it?').waitFor();

    expect(await log.getByLabel('Delivered').count()).toBe(1);
    expect(await log.getByLabel('Sent', { exact: true }).count()).toBe(0);
  });

  it("follows a merge of two customers and an edit of one's name in the list and in the open thread", async () => {
    const kept = await customerWrites(t, { name: 'Merge Keeper', text: 'From the first number' });
    const absorbed = await customerWrites(t, { name: 'Merge Absorbed', text: 'From the second number' });
    const admin = await t.adminToken();
    const contactOf = async (phone: string) =>
      (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token: admin })).body.data[0].id as string;
    const [keptContact, absorbedContact] = [await contactOf(kept.phone), await contactOf(absorbed.phone)];
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Merge Absorbed').waitFor();
    await row(page, 'Merge Keeper').click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('From the first number').waitFor();

    const merged = await t.request('POST', `/api/v1/contacts/${keptContact}/merge`, { token: admin, body: { from: absorbedContact } });
    expect(merged.status).toBe(200);
    // The absorbed customer's conversation is gone, its messages in the thread that stays.
    await row(page, 'Merge Absorbed').waitFor({ state: 'detached' });
    await log.getByText('From the second number').waitFor();

    const renamed = await t.request('PATCH', `/api/v1/contacts/${keptContact}`, { token: admin, body: { name: 'Renamed Keeper' } });
    expect(renamed.status).toBe(200);
    await row(page, 'Renamed Keeper').waitFor();
    await page.getByRole('heading', { name: 'Renamed Keeper' }).waitFor();
  });

  it('switches the composer to templates when the 24-hour window closes', async () => {
    // The customer wrote 24 hours less 10 minutes ago; once the thread shows the window open, the
    // page's clock jumps past its end (a window of seconds could close before a slow run opened it).
    const timestamp = Math.floor(Date.now() / 1000) - 24 * 3600 + 600;
    await customerWrites(t, { name: 'Closing Window', text: 'Are you still there?', timestamp });
    const page = await open();
    await page.clock.install();
    await logIn(page, baseUrl, ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Closing Window').click();
    await page.getByText(/24-hour window open/).waitFor();
    await page.getByLabel('Message (/ for canned responses and macros)').waitFor();

    // To 15 s before the end (the thread's 30 s tick fires on the way, and the window stays open),
    // then past it: the close is shown by the timer set for it, not by the next tick 30 s on.
    const endsAt = (timestamp + 24 * 3600) * 1000;
    await page.clock.fastForward(endsAt - Date.now() - 15_000);
    await page.getByText(/24-hour window open/).waitFor();
    await page.clock.fastForward(20_000);
    await page.getByText(/The 24-hour window closed/).waitFor({ timeout: 5_000 });
    await page.getByLabel('Template', { exact: true }).waitFor();
    expect(await page.getByLabel('Message (/ for canned responses and macros)').count()).toBe(0);
  });

  /** Opens the console through a proxy the test cuts, as a network would drop; `during` runs while it is cut. */
  async function throughDroppedConnection(
    before: (page: Page) => Promise<void>,
    during: () => Promise<void>,
    after: (page: Page) => Promise<void>,
  ) {
    const { port } = new URL(baseUrl);
    const proxy = await TcpProxy.start('127.0.0.1', Number(port));
    const page = await open();
    try {
      await logIn(page, `http://127.0.0.1:${proxy.port}`, ADMIN.email, ADMIN.password);
      await page.getByRole('tab', { name: /All open/ }).click();
      const streamState = page.locator('.stream-state');
      await streamState.filter({ hasText: 'Live' }).waitFor();
      await before(page);
      proxy.cut();
      await streamState.filter({ hasText: 'Reconnecting…' }).waitFor();
      await during();
      proxy.restore();
      await streamState.filter({ hasText: 'Live' }).waitFor({ timeout: 45_000 });
      await after(page);
    } finally {
      await contexts.pop()?.close();
      await proxy.close();
    }
    // The cuts ended the page's open requests, or refused one made meanwhile: those errors are the test's doing.
    const found = problems[problems.length - 1];
    found.splice(
      0,
      found.length,
      ...found.filter(
        (problem) =>
          !/ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_(RESET|CLOSED|REFUSED)|ERR_EMPTY_RESPONSE|ERR_SOCKET_NOT_CONNECTED/.test(
            problem,
          ),
      ),
    );
  }

  it('shows a customer who wrote STOP as opted out of campaigns on the contacts page, and lets an admin opt them back in', async () => {
    const { phone } = await customerWrites(t, { name: 'Stella Stop', text: 'Hi' });
    await customerWrites(t, { phone: phone.slice(1), text: 'STOP' });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByLabel('Search contacts').fill('Stella Stop');
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.getByRole('row', { name: /Stella Stop/ });
    await row.getByText('Opted out of campaigns').waitFor();
    await row.getByRole('button', { name: 'Opt in Stella Stop of campaigns' }).click();
    await row.getByRole('button', { name: 'Opt out Stella Stop of campaigns' }).waitFor();
    expect(await row.getByText('Opted out of campaigns').count()).toBe(0);
  });

  it('blocks and unblocks a customer from the contacts page, and shows why the channel cannot block an older one', async () => {
    const today = await customerWrites(t, { name: 'Block Today', text: 'Rude words' });
    await customerWrites(t, { name: 'Block Yesterday', text: 'Old words', timestamp: Math.floor(Date.now() / 1000) - 25 * 3600 });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByLabel('Search contacts').fill('Block ');
    await page.getByRole('button', { name: 'Search' }).click();

    await page.getByRole('button', { name: 'Block Block Today', exact: true }).click();
    await page.getByRole('button', { name: 'Unblock Block Today', exact: true }).waitFor();
    expect(
      await page
        .getByRole('row', { name: /Block Today/ })
        .getByText('Blocked')
        .isVisible(),
    ).toBe(true);
    expect(graph.blocked.has(today.phone)).toBe(true);

    await page.getByRole('button', { name: 'Block Block Yesterday', exact: true }).click();
    await page
      .getByText("The customer's last message is more than 24 hours old: only a customer who wrote in the last 24 hours can be blocked")
      .waitFor();

    await page.getByRole('button', { name: 'Unblock Block Today', exact: true }).click();
    await page.getByRole('button', { name: 'Block Block Today', exact: true }).waitFor();
    expect(graph.blocked.has(today.phone)).toBe(false);
    // The refusal is the test's doing.
    const found = problems[problems.length - 1];
    found.splice(0, found.length, ...found.filter((problem) => !/status of 422/.test(problem)));
  });

  it('shows a customer without a phone by their username in the thread and on the contacts page, and answers them', async () => {
    const userId = 'US.4242000011112222';
    const body = messagesWebhook({
      contacts: [{ user_id: userId, profile: { name: 'Nophone Nadia', username: 'nadia.writes' } }],
      messages: [
        {
          from_user_id: userId,
          id: newWamid(),
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body: 'No number here' },
        },
      ],
    });
    expect((await t.request('POST', '/api/webhooks/messaging', { body })).status).toBe(200);
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Nophone Nadia').click();
    await page.getByText('@nadia.writes · open').waitFor();
    await page.getByLabel('Message (/ for canned responses and macros)').fill('We can help without a number');
    await page.keyboard.press('Enter');
    await eventually(async () => expect(graph.sendsTo(userId).map((r) => r.body?.recipient)).toEqual([userId]));

    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByLabel('Search contacts').fill('nadia.writes');
    await page.getByRole('button', { name: 'Search' }).click();
    await page
      .getByRole('row', { name: /Nophone Nadia/ })
      .getByText('@nadia.writes')
      .waitFor();
  });

  it('shows an admin the inboxes: the default number, whether its token is stored, and the webhook URL to give Meta', async () => {
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Inboxes' }).click();
    const defaultRow = page.getByRole('row', { name: /Default/ });
    await defaultRow.getByText('106540352242922').waitFor();
    expect(await defaultRow.getByText('Stored').count()).toBeGreaterThan(0);
    await page.getByText(`${baseUrl}/api/webhooks/messaging`).waitFor();
    expect(await page.getByText('browser-verify-token').count()).toBe(0);
    await page.getByRole('button', { name: 'Show the verify token' }).click();
    await page.getByText('browser-verify-token').waitFor();
  });

  it("explains a message the channel refused in an agent's words, and shows an admin the inbox whose token the channel refused", async () => {
    const { phone } = await customerWrites(t, { name: 'Limited Customer', text: 'Any offers?' });
    graph.failNext(phone, {
      status: 400,
      body: { error: { message: '(#131049) This message was not delivered to maintain healthy ecosystem engagement.', code: 131049 } },
    });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Limited Customer').click();
    await page.getByLabel('Message (/ for canned responses and macros)').fill('Our spring offer');
    await page.keyboard.press('Enter');
    const failure = page.getByRole('log', { name: 'Messages' }).locator('.failure');
    await failure.getByText("This customer has reached today's limit of marketing messages", { exact: false }).waitFor();
    expect(await failure.getAttribute('title')).toBe('(#131049) This message was not delivered to maintain healthy ecosystem engagement.');

    const token = await t.adminToken();
    const created = await t.request('POST', '/api/v1/inboxes', {
      token,
      body: { name: 'Expired Number', phone_number_id: '400000000000009', access_token: 'expired-token' },
    });
    await t.sql(
      "UPDATE inboxes SET channel_error = '(#190) Error validating access token', channel_error_at = now() WHERE name = 'Expired Number'",
    );
    try {
      await page.getByRole('link', { name: 'Inboxes' }).click();
      const alert = page.getByRole('row', { name: /Expired Number/ }).getByRole('alert');
      await alert.getByText("The number's access token has expired or was revoked", { exact: false }).waitFor();
      expect(
        await page
          .getByRole('row', { name: /Default/ })
          .getByRole('alert')
          .count(),
      ).toBe(0);
    } finally {
      await t.request('PATCH', `/api/v1/inboxes/${created.body.id}`, { token, body: { status: 'disabled' } });
    }
  });

  it("shows the month's priced messages per inbox on the reports page, and another month's", async () => {
    const { phone } = await customerWrites(t, { name: 'Priced Customer', text: 'How much?' });
    const token = await t.adminToken();
    const [conversation] = (await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(phone)}`, { token })).body.data;
    const sent = await t.request('POST', `/api/v1/conversations/${conversation.id}/messages`, {
      token,
      body: { type: 'text', text: 'Here is our price list' },
    });
    const wamid = await eventually(async () => {
      const [message] = await t.sql<{ channel_message_id: string | null }>(
        "SELECT channel_message_id FROM messages WHERE text = 'Here is our price list' ORDER BY created_at DESC LIMIT 1",
      );
      expect(message.channel_message_id).toEqual(expect.any(String));
      return message.channel_message_id!;
    });
    expect(sent.status).toBe(201);
    const priced = await t.request('POST', '/api/webhooks/messaging', {
      body: messagesWebhook(
        {
          statuses: [
            {
              id: wamid,
              status: 'delivered',
              timestamp: String(Math.floor(Date.now() / 1000)),
              recipient_id: phone.slice(1),
              pricing: { billable: true, pricing_model: 'PMP', category: 'marketing', type: 'regular' },
            },
          ],
        },
        { phoneNumberId: '106540352242922' },
      ),
    });
    expect(priced.status).toBe(200);
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Reports' }).click();
    const table = page.getByRole('table', { name: 'Priced messages' });
    const row = table.getByRole('row', { name: /Default marketing Charged PMP/ });
    await row.waitFor();
    expect(Number(await row.locator('td.number').textContent())).toBeGreaterThan(0);
    // The chart's numbers in the table beside it.
    const charted = page.getByRole('table', { name: 'Charged messages by category' }).getByRole('row', { name: /^marketing / });
    expect(Number(await charted.locator('td.number').textContent())).toBeGreaterThan(0);
    // The end first, so the period never ends before it starts while it is typed.
    await page.getByLabel('To (inclusive)').fill('2020-01-31');
    await page.getByLabel('From').fill('2020-01-01');
    await page.getByText('No priced messages in this period.').waitFor();
    await page.getByRole('status').filter({ hasText: '0 charged, 0 free' }).waitFor();
  });

  it("shows the team's figures on the reports page: tiles, a chart by day read by keyboard, tables by agent, ratings, and the CSV; axe finds nothing serious with every chart drawn", async () => {
    const token = await t.adminToken();
    const agent = await t.createUser({ name: 'Report Rita' });
    const { id } = await customerWrites(t, { name: 'Reported Customer', text: 'Is my order on its way?' });
    await t.request('PATCH', `/api/v1/conversations/${id}`, { token, body: { assigned_to: agent.id } });
    expect(
      (await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: agent.token, body: { type: 'text', text: 'It is' } }))
        .status,
    ).toBe(201);
    await t.request('PATCH', `/api/v1/conversations/${id}`, { token: agent.token, body: { status: 'closed' } });
    // The customer's rating, as the survey's answer records it (that path has its own tests in reports.e2e).
    await t.sql('UPDATE conversation_episodes SET csat_rating = 5 WHERE conversation_id = $1', [parsePublicId('conv', id)]);

    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Reports' }).click();
    const tiles = page.getByRole('definition');
    await tiles.first().waitFor();
    const resolved = page.locator('.tile', { hasText: 'Resolved' }).locator('dd');
    expect(Number(await resolved.textContent())).toBeGreaterThan(0);
    // The chart by day, drawn, and read by keyboard: End reads today's values aloud.
    const chart = page.getByRole('img', { name: /Conversations opened and first response time by day/ });
    await chart.locator('canvas').waitFor();
    await chart.focus();
    await page.keyboard.press('End');
    const today = new Date();
    const label = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    await page
      .locator('.chart-reading')
      .filter({ hasText: new RegExp(`^${label}: Conversations opened \\d+, First response \\(median\\) `) })
      .waitFor();
    // The agent's row beside the bars by agent.
    const byAgent = page.getByRole('table', { name: 'Conversations resolved by agent' });
    await byAgent.getByRole('row', { name: /^Report Rita 1 1 0 / }).waitFor();
    // Every chart drawn (the ratings' too), then axe over the whole page.
    await page.getByRole('img', { name: "Customers' ratings (1 to 5)" }).locator('canvas').waitFor();
    await page.getByRole('table', { name: "Customers' ratings" }).getByRole('row', { name: '5 1' }).waitFor();
    for (const drawn of await page.locator('.chart').all()) await drawn.locator('canvas').waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download conversations (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('conversations.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toMatch(/^conversation_id,inbox_id,contact_id,assigned_to,/);
    expect(csv).toContain(`${id},`);
  });

  it('lets an admin choose the members of an inbox, whom the API then lists', async () => {
    const admin = await t.adminToken();
    const member = await t.createUser({ role: 'agent', name: 'Member Maya', inbox_ids: [] });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Inboxes' }).click();
    await page
      .getByRole('row', { name: /Default/ })
      .getByRole('button', { name: 'Members' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Members of Default' });
    const maya = dialog.getByRole('checkbox', { name: /Member Maya/ });
    await maya.waitFor();
    expect(await maya.isChecked()).toBe(false);
    await maya.check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const listed = await t.request('GET', `/api/v1/inboxes/inb_00000000000070008000000000000001/members`, { token: admin });
    expect(listed.body.user_ids).toContain(member.id);
  });

  it('routes a waiting conversation to an agent the moment they come online in the header, after an admin chose round robin', async () => {
    const admin = await t.adminToken();
    const created = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: 'Browser Routing', phone_number_id: '200000000000088', access_token: 'routing-token' },
    });
    expect(created.status).toBe(201);
    const agent = await t.createUser({ name: 'Rita Router', inbox_ids: [created.body.id] });

    const adminPage = await openAs(ADMIN.email, ADMIN.password);
    await adminPage.getByRole('link', { name: 'Inboxes' }).click();
    await adminPage.getByRole('button', { name: 'Assignment of Browser Routing' }).click();
    const dialog = adminPage.getByRole('dialog', { name: 'Assignment of Browser Routing' });
    await dialog.getByLabel('Who takes new conversations').selectOption('round_robin');
    await dialog.getByLabel('Capacity').fill('2');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await adminPage
      .getByRole('row', { name: /Browser Routing/ })
      .getByText('Round robin, at most 2 each')
      .waitFor();

    const from = '15550009988';
    const written = await t.request('POST', '/api/webhooks/messaging', {
      body: messagesWebhook(
        {
          contacts: [{ wa_id: from, profile: { name: 'Wanda Waiting' } }],
          messages: [
            { from, id: newWamid(), timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'Anyone there?' } },
          ],
        },
        { phoneNumberId: '200000000000088' },
      ),
    });
    expect(written.status).toBe(200);

    const page = await openAs(agent.email, agent.password);
    await page.getByRole('tab', { name: /Waiting/ }).click();
    const waiting = row(page, 'Wanda Waiting');
    await waiting.getByText(/^waiting \d+ min$/).waitFor();
    expect(await page.getByLabel('Your availability').inputValue()).toBe('offline');

    await page.getByLabel('Your availability').selectOption('online');
    await waiting.waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: /^Mine/ }).click();
    await row(page, 'Wanda Waiting').waitFor();
    await page.locator('.availability-load').getByText('1 of 2').waitFor();
    const conversations = await t.request('GET', `/api/v1/conversations?inbox_id=${created.body.id}`, { token: admin });
    expect(conversations.body.data[0].assigned_to).toBe(agent.id);

    await page.getByRole('link', { name: 'Teams' }).click();
    await page
      .getByRole('row', { name: /Rita Router \(me\)/ })
      .getByText('Online')
      .waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('greets a customer with the message an admin wrote in the inbox’s automatic messages, shown in the thread as automatic', async () => {
    const admin = await t.adminToken();
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Inboxes' }).click();
    await page.getByRole('button', { name: 'Hours and automatic messages of Default' }).click();
    const dialog = page.getByRole('dialog', { name: 'Hours and automatic messages of Default' });
    await dialog.getByRole('checkbox', { name: /Greet a customer/ }).check();
    await dialog.getByLabel('Greeting text').fill('Hello from the browser team!');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    try {
      const { id } = await customerWrites(t, { name: 'Greta Greeted', text: 'Is anyone there?' });
      await page.goto(`${baseUrl}/conversations/${id}`);
      const log = page.getByRole('log', { name: 'Messages' });
      await log.getByText('Hello from the browser team!').waitFor();
      await log.getByText('Automatic').first().waitFor();
    } finally {
      await t.request('PATCH', '/api/v1/inboxes/inb_00000000000070008000000000000001', { token: admin, body: { greeting: null } });
    }
  });

  it('builds a rule in the editor that labels and notes a customer message mentioning a refund, and shows its run', async () => {
    const admin = await t.adminToken();
    await t.request('POST', '/api/v1/labels', { token: admin, body: { name: 'refund-request' } });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Automation' }).click();
    await page.getByRole('button', { name: 'New rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'New rule' });
    await dialog.getByLabel('Name').fill('Refunds from the browser');
    await dialog.getByLabel('When').selectOption('message.received');
    await dialog.getByRole('button', { name: 'Add condition' }).click();
    await dialog.getByLabel('Condition 1: field').selectOption('message.text');
    await dialog.getByLabel('Condition 1: operator').selectOption('contains');
    await dialog.getByLabel('Condition 1: value').fill('refund');
    await dialog.getByRole('button', { name: 'Add action' }).click();
    await dialog.getByLabel('Action 1: type').selectOption('add_labels');
    await dialog.getByRole('group', { name: 'Action 1: labels' }).getByRole('checkbox', { name: 'refund-request' }).check();
    await dialog.getByRole('button', { name: 'Add action' }).click();
    await dialog.getByLabel('Action 2: type').selectOption('add_note');
    await dialog.getByLabel('Action 2: note').fill('Refund asked: check the order');
    await dialog.getByRole('button', { name: 'Save rule' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /Refunds from the browser/ });
    await row.getByText('Add labels, Add a private note').waitFor();
    try {
      const { id } = await customerWrites(t, { name: 'Rhea Refund', text: 'I would like a refund for my order' });
      // The rule runs after the message's commit: the page is opened once it has acted, so what is
      // checked is what the console shows of a rule's work, not whether the stream was already open.
      await eventually(async () => {
        const thread = await t.request('GET', `/api/v1/conversations/${id}/messages?limit=10`, { token: admin });
        expect(thread.body.data.map((message) => message.text)).toContain('Refund asked: check the order');
      }, 30_000);
      await page.goto(`${baseUrl}/conversations/${id}`);
      await page.getByRole('log', { name: 'Messages' }).getByText('Refund asked: check the order').waitFor();
      await page.getByRole('button', { name: 'Labels (1)' }).waitFor();
      await page.goto(`${baseUrl}/admin/automation`);
      await page.getByRole('button', { name: 'Runs of the rule Refunds from the browser' }).click();
      await page
        .getByRole('dialog', { name: 'Runs of Refunds from the browser' })
        .getByText(/add labels done; add note done/)
        .waitFor();
    } finally {
      const rules = (await t.request('GET', '/api/v1/automation-rules', { token: admin })).body.data;
      for (const rule of rules) await t.request('DELETE', `/api/v1/automation-rules/${rule.id}`, { token: admin });
    }
  });

  it('creates a campaign with a preview of the filled message, starts it and follows its totals live', async () => {
    const admin = await t.adminToken();
    const phones = ['+16315550901', '+16315550902'];
    for (const [i, phone] of phones.entries())
      await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone, name: `Camper ${i + 1}`, tags: ['browser-campaign'] } });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('button', { name: 'New campaign' }).click();
    const dialog = page.getByRole('dialog', { name: 'New campaign' });
    await dialog.getByLabel('Name').fill('Browser campaign');
    await dialog.getByLabel('Template').selectOption({ label: 'order_update (en_US)' });
    await dialog.getByLabel('Body {{1}}').fill('for {{contact.name}}');
    await dialog.getByLabel('Tags (any of them, separated by commas)').fill('browser-campaign');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    const preview = dialog.getByRole('status');
    await preview.getByText('2 contacts').waitFor();
    await preview.getByText('Your order for Camper 1 is on its way.').waitFor();
    await dialog.getByRole('button', { name: 'Start sending' }).click();
    const detail = page.getByRole('dialog', { name: 'Browser campaign' });
    // The totals come from the stream as the campaign sends: both sent, with no reload.
    await detail.getByRole('row', { name: 'Sent 2' }).waitFor({ timeout: 20_000 });
    await detail.getByText('Completed').waitFor({ timeout: 20_000 });
    expect(phones.map((phone) => graph.sendsTo(phone).length)).toEqual([1, 1]);
    // The outcome table, and the same as CSV from its button.
    await detail.getByRole('row', { name: /Camper 2 sent/ }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), detail.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('recipients.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toBe('contact_id,name,phone,wa_user_id,status,reason,error_code,message_id,replied_at,updated_at');
    expect(csv).toContain(`Camper 1,${phones[0]},,sent`);
  });

  it('pauses, resumes and cancels a campaign from its dialog, the recipients not sent to skipped', async () => {
    const admin = await t.adminToken();
    // At one a second, eight recipients outlast the clicks below by seconds.
    for (let i = 1; i <= 8; i += 1)
      await t.request('POST', '/api/v1/contacts', {
        token: admin,
        body: { phone: `+1631555092${i}`, name: `Slow ${i}`, tags: ['browser-slow'] },
      });
    const created = await t.request('POST', '/api/v1/campaigns', {
      token: admin,
      body: {
        name: 'Slow campaign',
        inbox_id: 'inb_00000000000070008000000000000001',
        template: { name: 'hello_world', language: 'en_US' },
        audience: { tags: ['browser-slow'] },
        rate_per_second: 1,
      },
    });
    expect(created.status).toBe(201);
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.goto(`${baseUrl}/admin/campaigns`);
    await page.getByRole('button', { name: 'Slow campaign' }).click();
    const detail = page.getByRole('dialog', { name: 'Slow campaign' });
    await detail.getByRole('button', { name: 'Start sending' }).click();
    await detail.getByRole('button', { name: 'Pause' }).click();
    await detail.getByText(/^Paused/).waitFor();
    expect((await t.request('GET', `/api/v1/campaigns/${created.body.id}`, { token: admin })).body.status).toBe('paused');
    await detail.getByRole('button', { name: 'Resume' }).click();
    await detail.getByText(/^Sending/).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await detail.getByRole('button', { name: 'Cancel campaign' }).click();
    await detail.getByText(/^Cancelled/).waitFor();
    await detail.getByLabel('Status').selectOption('skipped');
    await detail.getByRole('cell', { name: 'the campaign was cancelled' }).first().waitFor();
  });

  it('runs a macro saved on the macros page from the reply box with a / command', async () => {
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Macros' }).click();
    await page.getByRole('button', { name: 'New macro' }).click();
    const dialog = page.getByRole('dialog', { name: 'New macro' });
    await dialog.getByLabel('Name').fill('Wrap up');
    await dialog.getByRole('button', { name: 'Add action' }).click();
    await dialog.getByLabel('Action 1: type').selectOption('send_text');
    await dialog.getByLabel('Action 1: message').fill('Glad we could help, goodbye!');
    await dialog.getByRole('button', { name: 'Add action' }).click();
    await dialog.getByLabel('Action 2: type').selectOption('close');
    await dialog.getByRole('button', { name: 'Save macro' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /Wrap up/ }).waitFor();
    const { id } = await customerWrites(t, { name: 'Mona Macro', text: 'Thanks, that solved it' });
    await page.goto(`${baseUrl}/conversations/${id}`);
    await page.getByLabel('Message (/ for canned responses and macros)').fill('/wrap');
    await page.getByRole('option', { name: /run the macro Wrap up/ }).click();
    await page.getByRole('log', { name: 'Messages' }).getByText('Glad we could help, goodbye!').waitFor();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
  });

  it('lets an admin add a number, test its connection and disable it', async () => {
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Inboxes' }).click();
    await page.getByRole('button', { name: 'Add a number' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a number' });
    await dialog.getByLabel('Name').fill('Browser Sales');
    await dialog.getByLabel('Phone number id').fill('200000000000077');
    await dialog.getByLabel('Access token').fill('browser-sales-token');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const added = page.getByRole('row', { name: /Browser Sales/ });
    await added.getByText('200000000000077').waitFor();
    await added.getByRole('button', { name: 'Test connection' }).click();
    await page.getByRole('status').getByText('Browser Sales: the channel answers for 15550000000 with this token.').waitFor();
    await added.getByText('15550000000').waitFor();
    await added.getByRole('button', { name: 'Disable' }).click();
    await added.getByText('Disabled').waitFor();
    expect(
      await page
        .getByRole('row', { name: /Default/ })
        .getByRole('button', { name: 'Disable' })
        .count(),
    ).toBe(0);
  });

  it('shows an agent the conversations of an inbox an admin adds them to, and drops those of one they leave, without a reload', async () => {
    const admin = await t.adminToken();
    const created = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: {
        name: 'Joined Later',
        phone_number_id: '200000000000079',
        business_account_id: '300000000000079',
        access_token: 'joined-token',
      },
    });
    expect(created.status).toBe(201);
    await customerWrites(t, { name: 'Later Side', text: 'Before you joined', phoneNumberId: '200000000000079' });
    await customerWrites(t, { name: 'Staying Side', text: 'Still here' });
    const agent = await t.createUser({ name: 'Moving Agent' });
    const page = await openAs(agent.email, agent.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Staying Side').waitFor();
    expect(await row(page, 'Later Side').count()).toBe(0);

    // Added to the new inbox: its conversation comes in, and the switcher offers it.
    const defaultInbox = 'inb_00000000000070008000000000000001';
    const added = await t.request('PATCH', `/api/v1/users/${agent.id}`, {
      token: admin,
      body: { inbox_ids: [defaultInbox, created.body.id] },
    });
    expect(added.status).toBe(200);
    await row(page, 'Later Side').waitFor();
    await page.getByLabel('Inbox', { exact: true }).locator('option', { hasText: 'Joined Later' }).waitFor({ state: 'attached' });
    // Taken off the default one: its conversation leaves.
    const left = await t.request('PATCH', `/api/v1/users/${agent.id}`, { token: admin, body: { inbox_ids: [created.body.id] } });
    expect(left.status).toBe(200);
    await page.locator('.conversation-row', { hasText: 'Staying Side' }).waitFor({ state: 'detached' });
    await row(page, 'Later Side').waitFor();
  });

  it('switches between inboxes, shows each conversation’s number, and writes first from the inbox chosen with a template of its catalogue', async () => {
    const admin = await t.adminToken();
    // The sales number is on a business account of its own, whose catalogue has another template.
    graph.accountTemplates.set('300000000000078', [
      { ...ORDER_UPDATE, name: 'sales_followup', id: '1192339204654499', components: [{ type: 'BODY', text: 'About your quote {{1}}' }] },
    ]);
    const created = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: {
        name: 'Switch Sales',
        phone_number_id: '200000000000078',
        business_account_id: '300000000000078',
        access_token: 'switch-token',
      },
    });
    expect(created.status).toBe(201);
    await customerWrites(t, { name: 'Sales Side', text: 'To sales', phoneNumberId: '200000000000078' });
    await customerWrites(t, { name: 'Default Side', text: 'To support' });
    const olga = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: '+16315550782', name: 'Outbound Olga' } });
    expect(olga.status).toBe(201);

    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Sales Side').getByText('Switch Sales').waitFor();
    await row(page, 'Default Side').waitFor();
    await page.getByLabel('Inbox', { exact: true }).selectOption({ label: 'Switch Sales' });
    await page.locator('.conversation-row', { hasText: 'Default Side' }).waitFor({ state: 'detached' });
    await row(page, 'Sales Side').waitFor();
    await page.getByLabel('Inbox', { exact: true }).selectOption({ label: 'All inboxes' });
    await row(page, 'Default Side').waitFor();

    await page.getByRole('button', { name: 'New conversation' }).click();
    const dialog = page.getByRole('dialog', { name: 'New conversation' });
    await dialog.getByLabel('Find a contact').fill('Outbound Olga');
    await dialog.getByRole('button', { name: 'Find' }).click();
    await dialog.getByLabel('Contact', { exact: true }).locator('option', { hasText: 'Outbound Olga' }).waitFor({ state: 'attached' });
    await dialog.getByLabel('From inbox').selectOption({ label: 'Switch Sales' });
    await dialog.getByRole('button', { name: 'Open' }).click();
    // The inbox's catalogue only: the default number's order_update is not offered from the sales number.
    const templates = dialog.getByLabel('Template', { exact: true });
    await templates.locator('option', { hasText: 'sales_followup (en_US)' }).waitFor({ state: 'attached' });
    expect(await templates.locator('option', { hasText: 'order_update' }).count()).toBe(0);
    await templates.selectOption({ label: 'sales_followup (en_US)' });
    await dialog.getByLabel('Body {{1}}').fill('#2077');
    await dialog.getByRole('button', { name: 'Send template' }).click();
    await eventually(async () => expect(graph.sendsTo('+16315550782')).toHaveLength(1));
    expect(graph.sendsTo('+16315550782')[0]).toMatchObject({ path: '/200000000000078/messages', authorization: 'Bearer switch-token' });
    expect(graph.sendsTo('+16315550782')[0].body?.template).toMatchObject({ name: 'sales_followup' });
    await page.getByRole('log', { name: 'Messages' }).waitFor();
  });

  it('opens a thread at the first unread message, at the newest when all is read, and keeps the place when older ones load above', async () => {
    const { id, phone } = await customerWrites(t, { name: 'Long Thread', text: 'message 1' });
    for (let n = 2; n <= 40; n += 1) await customerWrites(t, { phone: phone.slice(1), text: `message ${n}` });
    const admin = await t.adminToken();
    expect((await t.request('POST', `/api/v1/conversations/${id}/read`, { token: admin })).status).toBe(200);
    // Twenty unread: more than the thread shows at once, so the first of them can be at its top.
    for (let n = 41; n <= 60; n += 1) await customerWrites(t, { phone: phone.slice(1), text: `message ${n}` });

    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Long Thread').click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('message 60').waitFor();
    const divider = log.getByText('New messages');
    await divider.waitFor();
    const [logBox, dividerBox] = [await log.boundingBox(), await divider.boundingBox()];
    // The first unread message is at the top of the thread, not the oldest one loaded.
    expect(Math.abs(dividerBox!.y - logBox!.y)).toBeLessThan(20);
    expect(await log.evaluate((element) => element.scrollTop)).toBeGreaterThan(0);

    // Read now: opened again, it stands at the newest.
    await page.goto(`${baseUrl}/`);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Long Thread').click();
    await log.getByText('message 60').waitFor();
    await eventually(async () =>
      expect(await log.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight)).toBeLessThan(2),
    );
    expect(await log.getByText('New messages').count()).toBe(0);

    // Older messages load above what is on screen, which does not move.
    await log.evaluate((element) => (element.scrollTop = 0));
    const fromEnd = await log.evaluate((element) => element.scrollHeight - element.scrollTop);
    await page.getByRole('button', { name: 'Load older messages' }).click();
    await log.getByText('message 1', { exact: true }).waitFor({ state: 'attached' });
    expect(Math.abs((await log.evaluate((element) => element.scrollHeight - element.scrollTop)) - fromEnd)).toBeLessThan(2);
  });

  it('follows new messages in a thread opened at its unread divider when the divider is already at the end', async () => {
    const { id, phone } = await customerWrites(t, { name: 'Short Unread', text: 'early 1' });
    for (let n = 2; n <= 40; n += 1) await customerWrites(t, { phone: phone.slice(1), text: `early ${n}` });
    const admin = await t.adminToken();
    expect((await t.request('POST', `/api/v1/conversations/${id}/read`, { token: admin })).status).toBe(200);
    // One unread message: the divider's place is past the end of the scroll, so the thread opens at the end.
    await customerWrites(t, { phone: phone.slice(1), text: 'late 1' });

    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Short Unread').click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('New messages').waitFor();
    await log.getByText('late 1').waitFor();
    const fromEnd = () => log.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
    await eventually(async () => expect(await fromEnd()).toBeLessThan(2));

    await customerWrites(t, { phone: phone.slice(1), text: 'late 2' });
    await log.getByText('late 2').waitFor();
    await eventually(async () => expect(await fromEnd()).toBeLessThan(2));
  });

  it.each([
    ['1280 px', DESKTOP],
    ['360 px', PHONE],
  ])('shows every tab of the list whole at %s, none hidden past the edge', async (_, viewport) => {
    const page = await open(viewport);
    await logIn(page, baseUrl, ADMIN.email, ADMIN.password);
    const strip = page.getByRole('tablist', { name: 'Conversation lists' });
    await strip.waitFor();
    // Counts make the labels longer: wait for them, as an agent sees the strip.
    await strip.getByRole('tab', { name: /All open\s*\d+/ }).waitFor();
    const stripBox = (await strip.boundingBox())!;
    expect(await strip.evaluate((element) => element.scrollWidth - element.clientWidth)).toBe(0);
    const names = [];
    for (const tab of await strip.getByRole('tab').all()) {
      const box = (await tab.boundingBox())!;
      names.push((await tab.textContent())!.replace(/\d+$/, ''));
      expect(box.x).toBeGreaterThanOrEqual(stripBox.x - 0.5);
      expect(box.x + box.width).toBeLessThanOrEqual(Math.min(stripBox.x + stripBox.width, viewport.width) + 0.5);
      expect(await tab.isVisible()).toBe(true);
    }
    expect(names).toEqual(['Mine', 'My teams', 'Waiting', 'Unassigned', 'All open', 'Snoozed', 'Closed']);
  });

  it("sends a list from a canned response and shows the customer's choice replying to it, and a form's answers", async () => {
    const branches = {
      type: 'list',
      header: { type: 'text', text: 'Our branches' },
      body: { text: 'Which branch is nearest to you?' },
      action: {
        button: 'Choose a branch',
        sections: [
          {
            title: 'Germany',
            rows: [
              { id: 'hamburg', title: 'Hamburg', description: 'Mönckebergstraße 7' },
              { id: 'munich', title: 'Munich' },
            ],
          },
        ],
      },
    };
    const { phone } = await customerWrites(t, { name: 'Branch Customer', text: 'Where can I pick it up?' });
    const page = await openAs(ADMIN.email, ADMIN.password);
    // Written on the canned responses page, as the channel's JSON; the channel's limits are checked on saving.
    await page.getByRole('link', { name: 'Canned responses' }).click();
    await page.getByRole('button', { name: 'New canned response' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Shortcut').fill('branches');
    await dialog.getByLabel('Kind').selectOption('interactive');
    const tooLong = { ...branches, action: { ...branches.action, button: 'Choose the branch nearest to you' } };
    await dialog.getByLabel('Interactive message (JSON)').fill(JSON.stringify(tooLong));
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('interactive.action.button must be at most 20 characters, not 32').waitFor();
    await dialog.getByLabel('Interactive message (JSON)').fill(JSON.stringify(branches, null, 2));
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /\/branches list Which branch is nearest to you\?/ }).waitFor();
    // The refusal above was the test's doing: the browser logs its 400.
    const found = problems[problems.length - 1];
    found.splice(0, found.length, ...found.filter((problem) => !/status of 400/.test(problem)));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox', exact: true }).click();
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Branch Customer').click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('Where can I pick it up?').waitFor();

    await page.getByLabel('Message (/ for canned responses and macros)').fill('/bran');
    await page.getByRole('option', { name: /\/branches: \[a list\] Which branch/ }).click();
    await page.getByLabel('Interactive message to send').getByText('Sends a list').waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await eventually(async () => expect(graph.sendsTo(phone).map((r) => r.body?.type)).toContain('interactive'));
    expect(graph.sendsTo(phone).find((r) => r.body?.type === 'interactive')?.body?.interactive).toEqual(branches);
    // Shown as the customer's phone shows it: the header, the body, the button that opens the list, its rows.
    const question = log.getByLabel('Interactive message');
    await question.getByText('Our branches').waitFor();
    await question.getByText('☰ Choose a branch').waitFor();
    await question.getByText('Mönckebergstraße 7', { exact: false }).waitFor();

    const wamid = await eventually(async () => {
      const sent = graph.sendsTo(phone).find((r) => r.body?.type === 'interactive');
      const [message] = await t.sql<{ channel_message_id: string | null }>(
        "SELECT channel_message_id FROM messages WHERE type = 'interactive' AND direction = 'outbound' AND text = 'Which branch is nearest to you?' ORDER BY created_at DESC LIMIT 1",
      );
      expect(sent).toBeDefined();
      expect(message.channel_message_id).toEqual(expect.any(String));
      return message.channel_message_id!;
    });
    const choose = await t.request('POST', '/api/webhooks/messaging', {
      body: messageWebhook(
        phone.slice(1),
        {
          type: 'interactive',
          context: { from: '15550783881', id: wamid },
          interactive: { type: 'list_reply', list_reply: { id: 'munich', title: 'Munich' } },
        },
        { profileName: 'Branch Customer' },
      ),
    });
    expect(choose.status).toBe(200);
    // The choice arrives live, quoting the list it answers.
    const choice = log.getByRole('article', { name: /^Customer at/ }).filter({ hasText: 'Munich' });
    await choice.waitFor();
    expect(await choice.locator('blockquote.quote').textContent()).toBe('Which branch is nearest to you?');

    const form = await t.request('POST', '/api/webhooks/messaging', {
      body: messageWebhook(
        phone.slice(1),
        {
          type: 'interactive',
          interactive: {
            type: 'nfm_reply',
            nfm_reply: { name: 'flow', body: 'Sent', response_json: '{"flow_token":"t","pickup_day":"Friday","items":["mug","plate"]}' },
          },
        },
        { profileName: 'Branch Customer' },
      ),
    });
    expect(form.status).toBe(200);
    const answers = log.getByLabel('Form answers');
    await answers.getByText('pickup day').waitFor();
    await answers.getByText('Friday').waitFor();
    await answers.getByText('mug, plate').waitFor();
  });

  it('shows a shared location with its address and a map link, and a shared contact whose number starts a conversation', async () => {
    const kinds = Object.fromEntries(MESSAGE_KINDS.map((fixture) => [fixture.kind, fixture.message]));
    const { phone } = await customerWrites(t, { name: 'Sharing Customer', text: 'Here is where and who' });
    // A number no other test of this file writes from: the conversation it starts is a new one.
    const shared = { name: { formatted_name: 'Dae Kim' }, phones: [{ phone: '+1 (631) 555-0199', type: 'CELL', wa_id: '16315550199' }] };
    for (const message of [
      kinds['location with a name and address'],
      { type: 'contacts', contacts: [...(kinds.contacts.contacts as object[]).slice(0, 1), shared] },
      // A card as no channel sends it, which a webhook could still carry: shown as far as it goes, never a broken thread.
      { type: 'contacts', contacts: [null, { name: 5, phones: 'x' }, { phones: [null, { type: 7 }] }] },
    ]) {
      const answer = await t.request('POST', '/api/webhooks/messaging', {
        body: messageWebhook(phone.slice(1), { ...message }, { profileName: 'Sharing Customer' }),
      });
      expect(answer.status).toBe(200);
    }
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Sharing Customer').click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('1 Hacker Way, Menlo Park, CA 94025').waitFor();
    const map = log.getByRole('link', { name: /Open the map/ });
    expect(await map.getAttribute('href')).toBe(
      'https://www.openstreetmap.org/?mlat=37.483307&mlon=-122.148981#map=17/37.483307/-122.148981',
    );
    await log.getByText('Dae Kim').waitFor();
    expect(await log.getByText('👤 A contact').count()).toBe(3);
    expect(await log.getByText('+1 (415) 555-0123').count()).toBe(1);

    await log.getByRole('button', { name: 'Start a conversation with Dae Kim at +1 (631) 555-0199' }).click();
    await page.getByRole('heading', { name: 'Dae Kim' }).waitFor();
    await page.getByText('The customer has not written yet: only templates can be sent').waitFor();
    const token = await t.adminToken();
    const contact = (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent('+16315550199')}`, { token })).body.data[0];
    expect(contact).toMatchObject({ phone: '+16315550199', name: 'Dae Kim' });
  });

  it('says the session has ended when a request is refused with 401, with no uncaught error, and logs in again', async () => {
    const agent = await t.createUser({ name: 'Revoked Agent' });
    const page = await openAs(agent.email, agent.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    // The session is revoked elsewhere (a logout on another device, a password change).
    const token = await page.evaluate(
      (key) =>
        (
          JSON.parse((globalThis as unknown as { localStorage: { getItem(k: string): string } }).localStorage.getItem(key)) as {
            token: string;
          }
        ).token,
      'team-inbox.session',
    );
    expect((await t.request('POST', '/api/v1/auth/logout', { token })).status).toBe(204);
    // A request of the console meets the 401: the tab's list, unless its event stream, reconnecting, met it first and the tab is gone.
    const ended = page.getByRole('status').filter({ hasText: 'Your session has ended: log in again.' });
    await Promise.race([
      ended.waitFor(),
      page
        .getByRole('tab', { name: /Closed/ })
        .click()
        .catch(() => ended.waitFor()),
    ]);
    await ended.waitFor();
    await page.getByLabel('E-mail').fill(agent.email);
    await page.getByLabel('Password').fill(agent.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: /^Notifications/ }).waitFor();
    expect(await page.getByText('Your session has ended').count()).toBe(0);
    // The page is closed first, so that a request of the revoked session answered late is filtered too.
    for (const context of contexts.splice(0)) await context.close();
    // The refused requests are the test's doing; a page error (an uncaught one) would stay.
    const found = problems[problems.length - 1];
    found.splice(0, found.length, ...found.filter((problem) => !/status of 401/.test(problem)));
  });

  it('resumes the event stream after the connection drops, from the last event it had, with the events sent meanwhile', async () => {
    await throughDroppedConnection(
      async (page) => {
        await customerWrites(t, { name: 'Before Drop', text: 'First' });
        await row(page, 'Before Drop').waitFor();
      },
      () => customerWrites(t, { name: 'During Drop', text: 'Written while the connection was down' }).then(() => undefined),
      (page) => row(page, 'During Drop').waitFor(),
    );
  });

  it('asks for the list again when the stream comes back after a drop and its last event is past retention', async () => {
    await throughDroppedConnection(
      async (page) => {
        await customerWrites(t, { name: 'Before Retention', text: 'First' });
        await row(page, 'Before Retention').waitFor();
      },
      async () => {
        // Retention removed every event the page had seen, then a customer wrote.
        await t.sql('DELETE FROM events WHERE relayed_at IS NOT NULL');
        await customerWrites(t, { name: 'Past Retention', text: 'Written after the events were removed' });
      },
      (page) => row(page, 'Past Retention').waitFor(),
    );
  });

  it('asks for the list again when the stream comes back after a drop before any event arrived', async () => {
    await throughDroppedConnection(
      async () => undefined,
      () => customerWrites(t, { name: 'Unseen Drop', text: 'Written before the page had any event' }).then(() => undefined),
      (page) => row(page, 'Unseen Drop').waitFor(),
    );
  });

  it('shows what changed while it connected its event stream: a new conversation in the list, a new message in the open thread', async () => {
    const { phone } = await customerWrites(t, { name: 'Early Bird', text: 'Before the console opened' });
    const page = await open();
    // The stream's ticket is held: the page reads the list and the thread before the stream has its place.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/events/stream-tickets', async (route) => {
      await held;
      await route.continue();
    });
    await logIn(page, baseUrl, ADMIN.email, ADMIN.password);
    await page.getByRole('tab', { name: /All open/ }).click();
    await row(page, 'Early Bird').click();
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('Before the console opened').waitFor();

    // A client already following the events says when the changes have been sent to the streams open then.
    const watcher = await SseClient.connect(`${baseUrl}/api/v1/events/stream`, { authorization: `Bearer ${await t.adminToken()}` });
    try {
      await watcher.until((client) => client.frames('counts').length > 0);
      await customerWrites(t, { phone: phone.slice(1), text: 'Written while the console connected' });
      await customerWrites(t, { name: 'Late Comer', text: 'A new customer meanwhile' });
      await watcher.until((client) => client.events.some((event) => event.data.includes('A new customer meanwhile')));
    } finally {
      await watcher.close();
    }
    release();

    await log.getByText('Written while the console connected').waitFor();
    await row(page, 'Late Comer').waitFor();
  });

  it('asks the first admin, logged in with the generated password, for a new one before anything else', async () => {
    const fresh = await startTestApp({ env: { ADMIN_EMAIL: '', ADMIN_PASSWORD: '' } });
    try {
      const url = await listen(fresh);
      const file = join(fresh.config.dataDir, 'admin-password.txt');
      const generated = readFileSync(file, 'utf8').split('\n')[1];
      const page = await open();
      await page.goto(`${url}/`);
      await page.getByLabel('E-mail').fill('admin@localhost');
      await page.getByLabel('Password').fill(generated);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
      await page.getByLabel('Generated password').fill(generated);
      await page.getByLabel('New password', { exact: true }).fill('my-own-password-1');
      await page.getByLabel('New password again').fill('my-own-password-2');
      await page.getByRole('button', { name: 'Save and continue' }).click();
      await page.getByText('The two new passwords differ.').waitFor();
      await page.getByLabel('New password again').fill('my-own-password-1');
      await page.getByRole('button', { name: 'Save and continue' }).click();
      await page.getByRole('button', { name: /^Notifications/ }).waitFor();
      expect(existsSync(file)).toBe(false);
      // A reload keeps the session the new password's answer carried.
      await page.reload();
      await page.getByRole('button', { name: /^Notifications/ }).waitFor();
    } finally {
      await contexts.pop()?.close();
      await fresh.close();
    }
  });

  it('sets up two-factor login on the profile page from a QR code, then asks for a code at login', async () => {
    const user = await t.createUser({ name: 'Tess Totp' });
    const page = await openAs(user.email, user.password);
    await page.getByRole('link', { name: 'Tess Totp' }).click();
    await page.getByLabel('Your password').fill(user.password);
    await page.getByRole('button', { name: 'Set up two-factor login' }).click();
    const qr = page.getByRole('img', { name: 'QR code of the two-factor secret' });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    const secret = (await page.locator('.two-factor .secret').textContent())!;
    await page.getByLabel('Code from the app').fill(totpCodeOf(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('list', { name: 'Recovery codes' }).waitFor();
    expect(await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count()).toBe(10);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('Two-factor login is on.').waitFor();

    const next = await open();
    await next.goto(`${baseUrl}/`);
    await next.getByLabel('E-mail').fill(user.email);
    await next.getByLabel('Password').fill(user.password);
    await next.getByRole('button', { name: 'Log in' }).click();
    await next.getByLabel('Code').fill('000000');
    await next.getByRole('button', { name: 'Continue' }).click();
    await next.getByText('code is incorrect, expired or used already').waitFor();
    // The enrolment took the current step's code: the next step's is the one a login takes.
    await next.getByLabel('Code').fill(totpCodeOf(secret, Date.now() + 30_000));
    await next.getByRole('button', { name: 'Continue' }).click();
    await next.getByRole('button', { name: /^Notifications/ }).waitFor();
    const found = problems[problems.length - 1];
    found.splice(0, found.length, ...found.filter((problem) => !/status of 401/.test(problem)));
  });

  it('creates an API token on the profile page, shows its secret once, and revokes it', async () => {
    const user = await t.createUser({ name: 'Ingrid Integrator' });
    const page = await openAs(user.email, user.password);
    await page.getByRole('link', { name: 'Ingrid Integrator' }).click();
    await page.getByLabel('Token name').fill('CRM sync');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.locator('.new-api-token').textContent())!;
    expect(secret).toMatch(/^tinbox_/);
    expect((await t.request('GET', '/api/v1/me', { token: secret })).status).toBe(200);
    await page.getByRole('cell', { name: 'CRM sync', exact: true }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await page.getByText('No API tokens yet.').waitFor();
    expect((await t.request('GET', '/api/v1/me', { token: secret })).status).toBe(401);
  });

  it('shows an admin a locked account on the users page, unlocks it, and finds both in the audit log', async () => {
    const user = await t.createUser({ name: 'Larry Locked' });
    for (let n = 0; n < 10; n += 1)
      await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'not-his-password' } });
    const page = await openAs(ADMIN.email, ADMIN.password);
    await page.getByRole('link', { name: 'Users' }).click();
    await page
      .getByRole('row', { name: /Larry Locked/ })
      .getByText(/locked until/)
      .waitFor();
    await page.getByRole('button', { name: 'Unlock Larry Locked' }).click();
    await page.getByRole('button', { name: 'Unlock Larry Locked' }).waitFor({ state: 'detached' });
    expect(await t.login(user.email, user.password)).toEqual(expect.any(String));

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByLabel('Action').selectOption('login.locked');
    const locked = page.getByRole('row', { name: /login\.locked/ });
    await locked.first().waitFor();
    expect(await locked.first().textContent()).toContain('Larry Locked');
    await page.getByLabel('Action').selectOption('login.unlocked');
    await page.getByRole('row', { name: /login\.unlocked.*Larry Locked/ }).waitFor();
    expect(await page.getByRole('row', { name: /login\.locked/ }).count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
  });

  it('tells the agent when the rate limit refuses a request, and for how long', async () => {
    const limited = await startTestApp({ env: { RATE_LIMIT_MAX_REQUESTS: '12', RATE_LIMIT_WINDOW_MS: '60000' } });
    try {
      const url = await listen(limited);
      const page = await open();
      await logIn(page, url, ADMIN.email, ADMIN.password);
      await page.getByRole('link', { name: 'Contacts' }).click();
      const banner = page.locator('.banner');
      for (let attempt = 0; attempt < 20 && !(await banner.isVisible()); attempt += 1) {
        await page.getByLabel('Search contacts').fill(`customer ${attempt}`);
        await page.getByRole('button', { name: 'Search' }).click();
        await page.getByRole('table').waitFor();
      }
      expect(await banner.textContent()).toMatch(
        /^Too many requests: the service limits how many each user makes\. Try again in \d+ seconds\.$/,
      );
    } finally {
      await contexts.pop()?.close();
      await limited.close();
      // The refused requests are the test's doing; taken out once the page is closed, so that none is reported after.
      const found = problems[problems.length - 1];
      found.splice(0, found.length, ...found.filter((problem) => !/status of 429/.test(problem)));
    }
  });

  /** What one page's load and axe-core pass may take: a busy CI host ran out of the 60 s default at over 2 s a page. */
  const PAGE_CHECK_BUDGET_MS = 10_000;
  const pages: { name: string; path: string; ready: (page: Page) => Promise<void> }[] = [
    { name: 'inbox', path: '/', ready: (page) => page.locator('.conversation-row').first().waitFor() },
    { name: 'contacts', path: '/contacts', ready: (page) => page.getByRole('heading', { name: 'Contacts' }).waitFor() },
    {
      name: 'reports',
      path: '/reports',
      ready: async (page) => {
        await page
          .getByRole('status')
          .filter({ hasText: /charged/ })
          .waitFor();
        await page
          .getByRole('img', { name: /by day/ })
          .locator('canvas')
          .waitFor();
      },
    },
    { name: 'profile', path: '/profile', ready: (page) => page.getByRole('heading', { name: 'Your profile' }).waitFor() },
    { name: 'teams', path: '/teams', ready: (page) => page.getByRole('heading', { name: 'Agents' }).waitFor() },
    { name: 'users', path: '/admin/users', ready: (page) => page.getByRole('heading', { name: 'Users' }).waitFor() },
    { name: 'labels', path: '/admin/labels', ready: (page) => page.getByRole('heading', { name: 'Labels' }).waitFor() },
    { name: 'automation', path: '/admin/automation', ready: (page) => page.getByRole('heading', { name: 'Automation rules' }).waitFor() },
    { name: 'macros', path: '/macros', ready: (page) => page.getByRole('heading', { name: 'Macros' }).waitFor() },
    { name: 'campaigns', path: '/admin/campaigns', ready: (page) => page.getByRole('heading', { name: 'Campaigns' }).waitFor() },
    {
      name: 'canned-responses',
      path: '/admin/canned-responses',
      ready: (page) => page.getByRole('heading', { name: 'Canned responses' }).waitFor(),
    },
    { name: 'webhooks', path: '/admin/webhooks', ready: (page) => page.getByRole('heading', { name: 'Webhooks' }).waitFor() },
    { name: 'dead-letters', path: '/admin/dead-letters', ready: (page) => page.getByRole('heading', { name: 'Dead letters' }).waitFor() },
    { name: 'audit-log', path: '/admin/audit-log', ready: (page) => page.getByRole('heading', { name: 'Audit log' }).waitFor() },
    { name: 'inboxes', path: '/admin/inboxes', ready: (page) => page.getByRole('row', { name: /Default/ }).waitFor() },
  ];

  it.each([
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ])(
    'has no serious or critical accessibility violation on any page at %s width',
    async (width, viewport) => {
      const { id } = await customerWrites(t, { name: 'Accessible Customer', text: 'Checking every page' });
      // A thread with a reply and a note beside the customer's message, as agents see them.
      const token = await t.adminToken();
      await t.request('POST', `/api/v1/conversations/${id}/messages`, {
        token,
        body: { type: 'text', text: 'Every page is checked by axe-core.' },
      });
      await t.request('POST', `/api/v1/conversations/${id}/notes`, { token, body: { text: 'Notes stay inside the team.' } });
      const page = await open(viewport);
      const found: string[] = [];
      for (const path of ['/login', '/forgot-password', '/accept-invite?token=x', '/reset-password?token=x']) {
        await openWhenReady(page, `${baseUrl}${path}`, (p) => p.locator('h1').waitFor());
        found.push(...(await seriousAccessibilityViolations(page)).map((v) => `${path}: ${v}`));
        await screenshot(page, path, width);
      }
      await logIn(page, baseUrl, ADMIN.email, ADMIN.password);
      for (const { path, ready } of [
        ...pages,
        {
          path: `/conversations/${id}`,
          ready: (p: Page) => p.getByRole('log', { name: 'Messages' }).getByText('Checking every page').waitFor(),
        },
      ]) {
        await openWhenReady(page, `${baseUrl}${path}`, ready);
        found.push(...(await seriousAccessibilityViolations(page)).map((v) => `${path}: ${v}`));
        await screenshot(page, path, width);
      }
      expect(found).toEqual([]);
    },
    PAGE_CHECK_BUDGET_MS * (pages.length + 5),
  );
});

/**
 * With CONSOLE_SCREENSHOTS_DIR set (`npm run screenshots` sets docs/screenshots), each page the
 * accessibility check visits is also saved there, named by its path and the width.
 */
async function screenshot(page: Page, path: string, width: string): Promise<void> {
  const directory = process.env.CONSOLE_SCREENSHOTS_DIR;
  if (!directory) return;
  const name = path
    .split('?')[0]
    .replace(/^\/$/, '/inbox')
    .replace(/\/conversations\/.*/, '/conversation')
    .slice(1)
    .replace(/\//g, '-');
  await page.screenshot({ path: join(directory, `${name}-${width}.png`) });
}

/** The count a tab of the inbox shows. */
async function tabCount(page: Page, tab: string): Promise<number> {
  const text = await page
    .getByRole('tab', { name: new RegExp(`^${tab}`) })
    .locator('.count')
    .textContent();
  return Number(text);
}

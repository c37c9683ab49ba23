import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PageQuery } from '../src/common/pagination';
import { DeadLetterRepository } from '../src/inbound/dead-letter.repository';
import { InboundService } from '../src/inbound/inbound.service';
import { channelMessage, channelWebhook, hubSignature, newWamid } from './support/channel';
import { asInEvents } from './support/inbox';
import { describeWithPostgres, TEST_DATABASE_URL } from './support/environment';
import { startTestApp, TestApp } from './support/test-app';

/** A message id longer than PostgreSQL's index on channel_message_id can hold: a body that fails for what it holds. */
const overlongWamid = () => `wamid.${randomBytes(20_000).toString('base64')}`;

const APP_SECRET = 'channel-app-secret';

describe('channel webhook', () => {
  let t: TestApp;
  let admin: string;
  let phone = 16315550000;
  /** A customer number no other test uses, as the channel writes it (no +). */
  const newCustomer = () => String((phone += 1));

  const deliver = (body: unknown, headers: Record<string, string> = {}) => {
    const payload = JSON.stringify(body);
    return t.request('POST', '/api/webhooks/messaging', {
      payload,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, APP_SECRET), ...headers },
    });
  };
  const conversationOf = async (e164: string) => {
    const list = await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(e164)}`, { token: admin });
    return list.body.data[0] as
      { id: string; status: string; customer: { name: string; phone: string }; last_message_at: string } | undefined;
  };
  const threadOf = async (conversationId: string) =>
    (await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin })).body.data as Record<string, unknown>[];

  beforeAll(async () => {
    t = await startTestApp({ env: { MESSAGING_APP_SECRET: APP_SECRET, MESSAGING_WEBHOOK_VERIFY_TOKEN: 'verify-me' } });
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  describe('verification handshake', () => {
    it('answers the challenge as text when the verify token matches', async () => {
      const answer = await t.request(
        'GET',
        '/api/webhooks/messaging?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444',
      );
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('1158201444');
      expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    });

    it.each([
      ['a wrong token', 'hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1'],
      ['another mode', 'hub.mode=unsubscribe&hub.verify_token=verify-me&hub.challenge=1'],
      ['no token', 'hub.mode=subscribe&hub.challenge=1'],
    ])('refuses %s with 403', async (_, query) => {
      const answer = await t.request('GET', `/api/webhooks/messaging?${query}`);
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ error: 'The verify token does not match MESSAGING_WEBHOOK_VERIFY_TOKEN' });
    });
  });

  describe('signature', () => {
    it('refuses a body without X-Hub-Signature-256 with 401', async () => {
      const answer = await t.request('POST', '/api/webhooks/messaging', {
        body: channelWebhook({ messages: [channelMessage({ from: newCustomer() })] }),
      });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: 'X-Hub-Signature-256 is missing or does not match the body' });
    });

    it('refuses a signature of other bytes with 401, even for the same JSON re-serialised', async () => {
      const body = channelWebhook({ messages: [channelMessage({ from: newCustomer() })] });
      const signedCompact = hubSignature(JSON.stringify(body), APP_SECRET);
      const answer = await t.request('POST', '/api/webhooks/messaging', {
        payload: JSON.stringify(body, null, 2),
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signedCompact },
      });
      expect(answer.status).toBe(401);
    });

    it('checks the signature over the exact bytes received', async () => {
      const payload = JSON.stringify(channelWebhook({ messages: [channelMessage({ from: newCustomer() })] }), null, 2);
      const answer = await t.request('POST', '/api/webhooks/messaging', {
        payload,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, APP_SECRET) },
      });
      expect(answer.status).toBe(200);
    });
  });

  it('opens a conversation for a new customer, named after their profile, with the E.164 phone', async () => {
    const from = newCustomer();
    const answer = await deliver(
      channelWebhook({
        contacts: [{ wa_id: from, name: 'Maria Lopez' }],
        messages: [channelMessage({ from, payload: { body: 'Is my order shipped?' } })],
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ messages: 1, statuses: 0 });
    const conversation = await conversationOf(`+${from}`);
    expect(conversation).toMatchObject({ status: 'open', customer: { name: 'Maria Lopez', phone: `+${from}` }, assigned_to: null });
    expect(await threadOf(conversation!.id)).toEqual([
      expect.objectContaining({
        direction: 'inbound',
        type: 'text',
        text: 'Is my order shipped?',
        from: `+${from}`,
        status: 'received',
        sent_by: null,
        automated: false,
      }),
    ]);
  });

  it('records conversation.created and message.received with the whole message, the seed’s id, text and from among its fields', async () => {
    const from = newCustomer();
    await deliver(
      channelWebhook({ contacts: [{ wa_id: from, name: 'Ken' }], messages: [channelMessage({ from, payload: { body: 'hello' } })] }),
    );
    const conversation = await conversationOf(`+${from}`);
    const created = (await t.events('conversation.created')).filter((e) => e.data.conversation.id === conversation!.id);
    expect(created).toHaveLength(1);
    const received = (await t.events('message.received')).filter((e) => e.data.conversation.id === conversation!.id);
    expect(received).toHaveLength(1);
    expect(received[0].data).toEqual({
      message: {
        id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
        conversation_id: conversation!.id,
        direction: 'inbound',
        text: 'hello',
        from: `+${from}`,
        type: 'text',
        content: null,
        reply_to: null,
        reactions: [],
        referral: null,
        pricing_category: null,
        pricing_type: null,
        pricing_model: null,
        status: 'received',
        error: null,
        sent_by: null,
        automated: false,
        media: null,
        created_at: expect.any(String),
      },
      conversation: expect.objectContaining({
        id: conversation!.id,
        customer: { name: 'Ken', phone: `+${from}`, wa_user_id: null, username: null },
      }),
    });
    // The same message as the thread answers it: clients need not ask for it again.
    expect((await threadOf(conversation!.id))[0]).toEqual(received[0].data.message);
  });

  it('appends a known customer’s messages to their one conversation and moves last_message_at', async () => {
    const from = newCustomer();
    await deliver(channelWebhook({ messages: [channelMessage({ from, payload: { body: 'one' } })] }));
    const first = await conversationOf(`+${from}`);
    await deliver(channelWebhook({ messages: [channelMessage({ from, payload: { body: 'two' } })] }));
    const second = await conversationOf(`+${from}`);
    expect(second!.id).toBe(first!.id);
    expect(Date.parse(second!.last_message_at)).toBeGreaterThan(Date.parse(first!.last_message_at));
    expect((await threadOf(first!.id)).map((m) => m.text)).toEqual(['two', 'one']);
  });

  it('reopens a closed conversation when the customer writes again, recording conversation.reopened', async () => {
    const from = newCustomer();
    await deliver(channelWebhook({ messages: [channelMessage({ from })] }));
    const conversation = await conversationOf(`+${from}`);
    await t.request('PATCH', `/api/v1/conversations/${conversation!.id}`, { token: admin, body: { status: 'closed' } });
    await deliver(channelWebhook({ messages: [channelMessage({ from })] }));
    expect((await conversationOf(`+${from}`))!.status).toBe('open');
    expect((await t.events('conversation.reopened')).filter((e) => e.data.conversation.id === conversation!.id)).toHaveLength(1);
  });

  it('message.received carries the conversation as a GET answers it after the message: reopened, assignee, labels, preview', async () => {
    const from = newCustomer();
    await deliver(channelWebhook({ contacts: [{ wa_id: from, name: 'Iris' }], messages: [channelMessage({ from })] }));
    const conversation = await conversationOf(`+${from}`);
    const label = `ingest-${from}`;
    expect((await t.request('POST', '/api/v1/labels', { token: admin, body: { name: label } })).status).toBe(201);
    const me = (await t.request('GET', '/api/v1/me', { token: admin })).body as { id: string };
    const patched = await t.request('PATCH', `/api/v1/conversations/${conversation!.id}`, {
      token: admin,
      body: { labels: [label], assigned_to: me.id, status: 'closed' },
    });
    expect(patched.status).toBe(200);

    await deliver(channelWebhook({ messages: [channelMessage({ from, payload: { body: 'back again' } })] }));

    const shown = (await t.request('GET', `/api/v1/conversations/${conversation!.id}`, { token: admin })).body;
    expect(shown).toMatchObject({ status: 'open', labels: [label], assigned_to: me.id, last_message: { text: 'back again' } });
    const received = (await t.events('message.received')).filter((e) => e.data.conversation.id === conversation!.id);
    expect(received.map((e) => e.data.conversation)).toEqual([expect.anything(), asInEvents(shown)]);
  });

  it('stores a message the channel delivers twice only once, and a redelivery does not reopen', async () => {
    const from = newCustomer();
    const body = channelWebhook({ messages: [channelMessage({ from, id: newWamid() })] });
    expect((await deliver(body)).body).toEqual({ messages: 1, statuses: 0 });
    const conversation = await conversationOf(`+${from}`);
    await t.request('PATCH', `/api/v1/conversations/${conversation!.id}`, { token: admin, body: { status: 'closed' } });
    const again = await deliver(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ messages: 0, statuses: 0 });
    expect(await threadOf(conversation!.id)).toHaveLength(1);
    expect((await conversationOf(`+${from}`))!.status).toBe('closed');
    expect((await t.events('message.received')).filter((e) => e.data.conversation.id === conversation!.id)).toHaveLength(1);
  });

  it('stores every message of every entry and change of one delivery', async () => {
    const [a, b] = [newCustomer(), newCustomer()];
    const body = channelWebhook({ messages: [channelMessage({ from: a }), channelMessage({ from: b })] });
    (body.entry as { changes: unknown[] }[]).push({
      changes: [(channelWebhook({ messages: [channelMessage({ from: a })] }).entry as { changes: unknown[] }[])[0].changes[0]],
    });
    expect((await deliver(body)).body).toEqual({ messages: 3, statuses: 0 });
    expect(await threadOf((await conversationOf(`+${a}`))!.id)).toHaveLength(2);
    expect(await threadOf((await conversationOf(`+${b}`))!.id)).toHaveLength(1);
  });

  it.each([
    ['image', { id: 'media-1', mime_type: 'image/jpeg', sha256: 'abc', caption: 'my receipt' }, 'my receipt'],
    ['video', { id: 'media-2', mime_type: 'video/mp4' }, null],
    ['audio', { id: 'media-3', mime_type: 'audio/ogg; codecs=opus', voice: true }, null],
    ['document', { id: 'media-4', mime_type: 'application/pdf', filename: 'invoice.pdf', caption: 'invoice' }, 'invoice'],
    ['sticker', { id: 'media-5', mime_type: 'image/webp', animated: false }, null],
    ['location', { latitude: 38.9, longitude: -77.03, name: 'Head office', address: '1 Main St' }, 'Head office, 1 Main St'],
    ['interactive', { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes please' } }, 'Yes please'],
    ['interactive', { type: 'list_reply', list_reply: { id: 'r1', title: 'Returns', description: 'x' } }, 'Returns'],
    ['button', { payload: 'STOP', text: 'Stop promotions' }, 'Stop promotions'],
    ['reaction', { message_id: 'wamid.x', emoji: '👍' }, '👍'],
  ])('stores a %s message with its payload and its text', async (type, payload, text) => {
    const from = newCustomer();
    expect((await deliver(channelWebhook({ messages: [channelMessage({ from, type, payload })] }))).body.messages).toBe(1);
    const [message] = await threadOf((await conversationOf(`+${from}`))!.id);
    expect(message).toMatchObject({ type, text, content: payload });
  });

  it('stores a contacts message with the shared cards and the first name as text', async () => {
    const from = newCustomer();
    const cards = [{ name: { formatted_name: 'Ana Souza', first_name: 'Ana' }, phones: [{ phone: '+5511999999999', type: 'CELL' }] }];
    await deliver(channelWebhook({ messages: [channelMessage({ from, type: 'contacts', payload: cards })] }));
    const [message] = await threadOf((await conversationOf(`+${from}`))!.id);
    expect(message).toMatchObject({ type: 'contacts', text: 'Ana Souza', content: { contacts: cards } });
  });

  it('keeps a message of an unknown type raw and acknowledges it', async () => {
    const from = newCustomer();
    const answer = await deliver(
      channelWebhook({
        messages: [
          channelMessage({
            from,
            type: 'unsupported',
            payload: undefined,
            extra: { errors: [{ code: 131051, title: 'Message type unknown' }] },
          }),
        ],
      }),
    );
    expect(answer.status).toBe(200);
    const [message] = await threadOf((await conversationOf(`+${from}`))!.id);
    expect(message).toMatchObject({
      type: 'unsupported',
      text: null,
      content: expect.objectContaining({ errors: [{ code: 131051, title: 'Message type unknown' }] }),
    });
  });

  it('acknowledges shapes it does not know, storing nothing and logging them', async () => {
    const answer = await deliver({
      object: 'whatsapp_business_account',
      entry: [{ changes: [{ field: 'account_update', value: { event: 'VERIFIED_ACCOUNT' } }] }],
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ messages: 0, statuses: 0 });
    expect(t.logs.some((line) => String(line.msg).includes('account_update'))).toBe(true);
  });

  it('notifies the assignee when the customer writes in an assigned conversation', async () => {
    const from = newCustomer();
    const agent = await t.createUser({ name: 'Ines' });
    await deliver(channelWebhook({ contacts: [{ wa_id: from, name: 'Leo' }], messages: [channelMessage({ from })] }));
    const conversation = await conversationOf(`+${from}`);
    await t.request('PATCH', `/api/v1/conversations/${conversation!.id}`, { token: agent.token, body: { assigned_to: agent.id } });
    await deliver(channelWebhook({ messages: [channelMessage({ from })] }));
    const notifications = await t.request('GET', '/api/v1/notifications', { token: agent.token });
    expect(notifications.body.data).toEqual([
      expect.objectContaining({ type: 'message.received', conversation_id: conversation!.id, text: 'New message from Leo', read_at: null }),
    ]);
  });
});

describe('channel webhook poison bodies', () => {
  let t: TestApp;
  let admin: string;
  let phone = 16315560000;
  const newCustomer = () => String((phone += 1));

  const deliver = (payload: string) =>
    t.request('POST', '/api/webhooks/messaging', {
      payload,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, APP_SECRET) },
    });
  const threadOf = async (e164: string) => {
    const list = await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(e164)}`, { token: admin });
    const conversation = list.body.data[0] as { id: string; customer: { name: string } } | undefined;
    if (!conversation) return { conversation, messages: [] };
    const thread = await t.request('GET', `/api/v1/conversations/${conversation.id}/messages`, { token: admin });
    return { conversation, messages: thread.body.data as Record<string, unknown>[] };
  };
  const deadLetters = async () =>
    (await t.request('GET', '/api/v1/inbound/failed?limit=100', { token: admin })).body.data as Record<string, unknown>[];

  beforeAll(async () => {
    t = await startTestApp({ env: { MESSAGING_APP_SECRET: APP_SECRET } });
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  it('stores NUL and unpaired surrogates as U+FFFD, in text and content, with every other message of the body', async () => {
    const [a, b] = [newCustomer(), newCustomer()];
    const payload = JSON.stringify(
      channelWebhook({
        contacts: [{ wa_id: a, name: 'Ana\u0000' }],
        messages: [
          channelMessage({ from: a, payload: { body: 'order\u0000 42' } }),
          channelMessage({
            from: a,
            type: 'image',
            payload: { id: 'media-1', mime_type: 'image/jpeg', caption: 'receipt \ud800', sha256: '\u0000' },
          }),
          channelMessage({ from: b, payload: { body: 'a clean one' } }),
        ],
      }),
    );
    const answer = await deliver(payload);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ messages: 3, statuses: 0 });
    const first = await threadOf(`+${a}`);
    expect(first.conversation!.customer.name).toBe('Ana\uFFFD');
    expect(first.messages).toEqual([
      expect.objectContaining({
        type: 'image',
        text: 'receipt \uFFFD',
        content: expect.objectContaining({ caption: 'receipt \uFFFD', sha256: '\uFFFD' }),
      }),
      expect.objectContaining({ type: 'text', text: 'order\uFFFD 42' }),
    ]);
    expect((await threadOf(`+${b}`)).messages).toEqual([expect.objectContaining({ text: 'a clean one' })]);
    expect(t.logs.some((line) => String(line.msg).includes('first at body.entry.0.changes.0.value.contacts.0.profile.name'))).toBe(true);
  });

  it('refuses a body nested deeper than 64 levels with 400 instead of overflowing the stack', async () => {
    const value = JSON.stringify(channelWebhook({ messages: [channelMessage({ from: newCustomer() })] }));
    const payload = value.replace('"messaging_product"', `"deep":${'['.repeat(50_000)}${']'.repeat(50_000)},"messaging_product"`);
    const answer = await deliver(payload);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'Body nests arrays and objects deeper than 64 levels' });
    expect(t.logs.filter((line) => Number(line.level) >= 50)).toEqual([]);
  });

  it('stores bodies that arrive together, and keeps only the one that fails as a dead letter', async () => {
    const customers = [newCustomer(), newCustomer(), newCustomer(), newCustomer()];
    const bodies = customers.map((from, index) =>
      JSON.stringify(
        channelWebhook({
          messages: [channelMessage({ from, ...(index === 2 ? { id: overlongWamid() } : {}), payload: { body: `together ${index}` } })],
        }),
      ),
    );
    // Called in one turn of the event loop: on the embedded engine, one group commit, which fails and is stored again body by body.
    const answers = await ingestTogether(bodies);
    expect(answers).toEqual([
      { messages: 1, statuses: 0 },
      { messages: 1, statuses: 0 },
      { messages: 0, statuses: 0 },
      { messages: 1, statuses: 0 },
    ]);
    for (const index of [0, 1, 3]) {
      expect((await threadOf(`+${customers[index]}`)).messages).toEqual([expect.objectContaining({ text: `together ${index}` })]);
    }
    expect((await threadOf(`+${customers[2]}`)).messages).toEqual([]);
    const kept = (await deadLetters()).filter((letter) => bodies.includes(letter.body as string));
    expect(kept.map((letter) => letter.body)).toEqual([bodies[2]]);
  });

  /** Bodies handed to the ingest in one turn of the event loop, as concurrent requests: one read of the inboxes checks them all, and they reach the store together. */
  const ingestTogether = (bodies: string[]) => {
    const inbound = t.app.get(InboundService);
    return Promise.all(
      bodies.map((payload) => inbound.ingest(Buffer.from(payload), hubSignature(payload, APP_SECRET), JSON.parse(payload))),
    );
  };
  /** The transactions that wrote these texts' messages (their xmin). */
  const transactionsOf = async (texts: string[]) =>
    new Set((await t.sql<{ xmin: string }>('SELECT xmin::text FROM messages WHERE text = ANY($1)', [texts])).map((row) => row.xmin));
  const textBodies = (texts: string[]) =>
    texts.map((text) => JSON.stringify(channelWebhook({ messages: [channelMessage({ from: newCustomer(), payload: { body: text } })] })));

  (TEST_DATABASE_URL ? it.skip : it)('stores bodies that arrive together in one transaction on the embedded engine', async () => {
    const texts = ['grouped a', 'grouped b', 'grouped c'];
    expect(await ingestTogether(textBodies(texts))).toEqual(texts.map(() => ({ messages: 1, statuses: 0 })));
    expect((await transactionsOf(texts)).size).toBe(1);
  });

  (TEST_DATABASE_URL ? it : it.skip)('stores each body in a transaction of its own on PostgreSQL', async () => {
    const texts = ['alone a', 'alone b', 'alone c'];
    expect(await ingestTogether(textBodies(texts))).toEqual(texts.map(() => ({ messages: 1, statuses: 0 })));
    expect((await transactionsOf(texts)).size).toBe(3);
  });

  it('keeps a body that fails for what it holds as a dead letter, answering 200 so the channel stops retrying', async () => {
    const from = newCustomer();
    const payload = JSON.stringify(
      channelWebhook({ messages: [channelMessage({ from, payload: { body: 'fine' } }), channelMessage({ from, id: overlongWamid() })] }),
    );
    const answer = await deliver(payload);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ messages: 0, statuses: 0 });
    // One body is one transaction: nothing of it is stored, all of it is kept.
    expect((await threadOf(`+${from}`)).messages).toEqual([]);
    const letter = (await deadLetters()).find((item) => item.body === payload);
    expect(letter).toEqual({
      id: expect.stringMatching(/^ibf_[0-9a-f]{32}$/),
      received_at: expect.any(String),
      error: expect.stringMatching(/index row/),
      reason: 'not stored',
      phone_number_id: null,
      body: payload,
      replayed_at: null,
      replay_error: null,
    });
    const logged = t.logs.find((line) => String(line.msg).includes(`kept as dead letter ${String(letter!.id)}`));
    expect(logged).toMatchObject({ level: 50, stack: expect.stringMatching(/^QueryFailedError: index row[^\n]*\n\s+at /) });
    const [row] = await t.sql<{ signature: string; error_stack: string }>(
      'SELECT signature, error_stack FROM inbound_dead_letters WHERE raw_body = $1',
      [Buffer.from(payload)],
    );
    expect(row).toEqual({
      signature: hubSignature(payload, APP_SECRET),
      error_stack: expect.stringMatching(/^QueryFailedError: .*\n\s+at /),
    });
  });

  it('answers 422 when a replay fails again, and records why', async () => {
    const payload = JSON.stringify(channelWebhook({ messages: [channelMessage({ from: newCustomer(), id: overlongWamid() })] }));
    await deliver(payload);
    const letter = (await deadLetters()).find((item) => item.body === payload)!;
    const replay = await t.request('POST', `/api/v1/inbound/failed/${String(letter.id)}/replay`, { token: admin });
    expect(replay.status).toBe(422);
    expect(replay.body).toEqual({ error: expect.stringMatching(/^The body could not be stored: index row/) });
    expect((await deadLetters()).find((item) => item.id === letter.id)).toMatchObject({
      replayed_at: null,
      replay_error: expect.stringMatching(/index row/),
    });
  });

  it('replays a kept body once its cause is fixed, keeps it marked, and refuses to replay it again', async () => {
    const from = newCustomer();
    const payload = JSON.stringify(channelWebhook({ messages: [channelMessage({ from, payload: { body: 'kept, then stored' } })] }));
    // A failure that is not the database being down (here, a table missing, as after a bad migration).
    const dataSource = t.app.get(DataSource);
    await dataSource.query('ALTER TABLE contacts RENAME TO contacts_away');
    let answer;
    try {
      answer = await deliver(payload);
    } finally {
      await dataSource.query('ALTER TABLE contacts_away RENAME TO contacts');
    }
    expect(answer.status).toBe(200);
    expect((await threadOf(`+${from}`)).messages).toEqual([]);
    const letter = (await deadLetters()).find((item) => item.body === payload)!;
    expect(letter.error).toMatch(/contacts/);

    const replay = await t.request('POST', `/api/v1/inbound/failed/${String(letter.id)}/replay`, { token: admin });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ ...letter, replayed_at: expect.any(String), replay_error: null });
    expect((await threadOf(`+${from}`)).messages).toEqual([expect.objectContaining({ text: 'kept, then stored', direction: 'inbound' })]);
    expect((await t.events('message.received')).filter((e) => e.data.message.from === `+${from}`)).toHaveLength(1);

    const again = await t.request('POST', `/api/v1/inbound/failed/${String(letter.id)}/replay`, { token: admin });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'This body was already replayed and stored' });
    expect((await deadLetters()).find((item) => item.id === letter.id)).toEqual(replay.body);
  });

  it('lists dead letters newest first, a page at a time', async () => {
    for (let i = 0; i < 3; i++)
      await deliver(JSON.stringify(channelWebhook({ messages: [channelMessage({ from: newCustomer(), id: overlongWamid() })] })));
    const all = await deadLetters();
    const first = await t.request('GET', '/api/v1/inbound/failed?limit=2', { token: admin });
    expect(first.body.data).toEqual(all.slice(0, 2));
    const second = await t.request('GET', `/api/v1/inbound/failed?limit=2&cursor=${String(first.body.next_cursor)}`, { token: admin });
    expect(second.body.data).toEqual(all.slice(2, 4));
    const times = all.map((item) => Date.parse(String(item.received_at)));
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  it('serves the list from inbound_dead_letters_received_idx, in order, on every page', async () => {
    const plan = async (cursor?: string) =>
      t.app.get(DataSource).transaction(async (manager) => {
        const { text, values } = t.app.get(DeadLetterRepository).listStatement(Object.assign(new PageQuery(), { cursor })).compile();
        await manager.query('SET LOCAL enable_seqscan = off');
        const rows: Record<string, string>[] = await manager.query(`EXPLAIN ${text}`, values);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    const first = await t.request('GET', '/api/v1/inbound/failed?limit=1', { token: admin });
    for (const cursor of [undefined, String(first.body.next_cursor)]) {
      const explained = await plan(cursor);
      expect(explained).toMatch(/Index Scan using inbound_dead_letters_received_idx/);
      expect(explained).not.toMatch(/Sort|Seq Scan/);
    }
  });

  it('lets only admins list and replay (403 for an agent), and answers an unknown id with 404', async () => {
    const agent = await t.createUser({ role: 'agent' });
    expect((await t.request('GET', '/api/v1/inbound/failed', { token: agent.token })).status).toBe(403);
    const anyId = `ibf_${'0'.repeat(32)}`;
    const refused = await t.request('POST', `/api/v1/inbound/failed/${anyId}/replay`, { token: agent.token });
    expect(refused.status).toBe(403);
    for (const id of [anyId, `msg_${'0'.repeat(32)}`]) {
      const unknown = await t.request('POST', `/api/v1/inbound/failed/${id}/replay`, { token: admin });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'Dead letter not found' });
    }
  });
});

describe('channel webhook rate limiting', () => {
  it('never limits the channel webhook, whatever RATE_LIMIT_MAX_REQUESTS says', async () => {
    const t = await startTestApp({ env: { RATE_LIMIT_MAX_REQUESTS: '3' } });
    try {
      for (let i = 0; i < 6; i++) {
        const answer = await t.request('POST', '/api/webhooks/messaging', { body: channelWebhook({ statuses: [] }) });
        expect(answer.status).toBe(200);
        expect(answer.headers['ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await t.close();
    }
  });
});

describeWithPostgres('channel webhook while the database is down (needs TEST_DATABASE_URL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.database.comeBack();
    await t.close();
  });

  it('answers 503 so the channel retries, and stores the retry once the database is back', async () => {
    const body = channelWebhook({ messages: [channelMessage({ from: '16315559999' })] });
    await t.database.goDown();
    const down = await t.request('POST', '/api/webhooks/messaging', { body });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: 'The webhook could not be stored; retry later' });
    await t.database.comeBack();
    const retried = await t.request('POST', '/api/webhooks/messaging', { body });
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ messages: 1, statuses: 0 });
  });

  it('answers a replay 503 while the database is down, and replays it once it is back', async () => {
    const body = channelWebhook({ messages: [channelMessage({ from: '16315559998' })] });
    const dataSource = t.app.get(DataSource);
    await dataSource.query('ALTER TABLE contacts RENAME TO contacts_away');
    try {
      expect((await t.request('POST', '/api/webhooks/messaging', { body })).status).toBe(200);
    } finally {
      await dataSource.query('ALTER TABLE contacts_away RENAME TO contacts');
    }
    const admin = await t.adminToken();
    const [letter] = (await t.request('GET', '/api/v1/inbound/failed', { token: admin })).body.data as { id: string }[];
    await t.database.goDown();
    const down = await t.request('POST', `/api/v1/inbound/failed/${letter.id}/replay`, { token: admin });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: 'The database is unavailable; retry later' });
    await t.database.comeBack();
    const replayed = await t.request('POST', `/api/v1/inbound/failed/${letter.id}/replay`, { token: admin });
    expect(replayed.status).toBe(200);
    expect(replayed.body.replayed_at).toEqual(expect.any(String));
  });
});

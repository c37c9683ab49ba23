import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { EventReplayService } from '../src/events/event-replay.service';
import { EventStream } from '../src/events/event-stream';
import { EventStreamClients } from '../src/events/event-stream-clients.service';
import type { EventType } from '../src/events/event-types';
import type { EventEnvelope } from '../src/events/event.entity';
import { toEnvelope } from '../src/events/event-envelope';
import { EventRepository } from '../src/events/event.repository';
import { EventsService } from '../src/events/events.service';
import { newUuid } from '../src/common/ids';
import { Database } from '../src/database/database';
import { UsersService } from '../src/users/users.service';
import { eventually } from './support/channel';
import { describeWithPostgresAndRedis, TEST_REDIS_URL } from './support/environment';
import { asInEvents, customerWrites } from './support/inbox';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { freshRedisPrefix, startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { nextMillisecond } from './support/clock';
import { SseClient } from './support/sse-client';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const uuidOfUser = (publicId: string) => publicId.replace(/^user_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/**
 * Records an event the way the application does, claims it as the relay does (so a running relay
 * leaves it to the test) and answers its envelope; `publish` then does what the relay does next.
 */
async function record(
  t: TestApp,
  type: EventType = 'contact.updated',
  data: Record<string, unknown> = { n: Math.random() },
): Promise<EventEnvelope> {
  const event = await t.app.get(DataSource).transaction(async (manager) => {
    // The stream carries whatever payload an event has: these tests record small markers instead.
    const recorded = await t.app.get(EventsService).record(manager, type as 'contact.updated', data as never);
    await t.app.get(EventRepository).markRelayed(manager, [recorded.id]);
    return recorded;
  });
  // Distinct milliseconds, so the table's (created_at, id) order is the order of recording.
  await nextMillisecond();
  return toEnvelope(event);
}

const publish = (t: TestApp, ...events: EventEnvelope[]) =>
  t.app.get(EventStream).publish(events.map((envelope) => ({ envelope, audience: null, inboxId: null })));

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `${(await t.app.getUrl()).replace('[::1]', '127.0.0.1')}/api/v1/events/stream`;
}

describe('event stream (GET /api/v1/events/stream)', () => {
  let t: TestApp;
  let url: string;
  let token: string;
  const clients: SseClient[] = [];
  const connect = async (headers: Record<string, string> = {}, query = ''): Promise<SseClient> => {
    const client = await SseClient.connect(`${url}${query}`, { authorization: `Bearer ${token}`, ...headers });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
    token = (await t.createUser()).token;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => t.close());

  it('answers 401 without a token', async () => {
    const answer = await fetch(url);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ error: expect.any(String) });
  });

  it('streams with the bearer header, keeping the headers set before the stream began', async () => {
    const client = await connect({ 'x-request-id': 'stream-request-1' });
    expect(client.response.status).toBe(200);
    const headers = Object.fromEntries(client.response.headers);
    expect(headers).toMatchObject({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': 'stream-request-1',
      'x-content-type-options': 'nosniff',
      'ratelimit-limit': expect.any(String),
    });
    expect(headers['content-length']).toBeUndefined();
  });

  it('streams with a one-time ticket in the query, which never reaches the logs and opens no second stream', async () => {
    const { ticket } = (await t.request('POST', '/api/v1/events/stream-tickets', { token })).body;
    const client = await SseClient.connect(`${url}?ticket=${encodeURIComponent(ticket)}`);
    clients.push(client);
    expect(client.response.status).toBe(200);
    expect(client.response.headers.get('content-type')).toBe('text/event-stream');
    const again = await fetch(`${url}?ticket=${encodeURIComponent(ticket)}`);
    expect(again.status).toBe(401);
    expect(await again.json()).toEqual({ error: 'This stream ticket was used already: ask for a new one for each connection' });
    await client.close();
    await waitFor(() => t.app.get(EventStreamClients).openCount === 0);
    expect(
      t.logs.filter(
        (line) => line.msg === 'event stream closed' && (line.req as { url?: string })?.url === '/api/v1/events/stream?ticket=[redacted]',
      ),
    ).toHaveLength(1);
    expect(JSON.stringify(t.logs)).not.toContain(ticket);
  });

  it('refuses an access token in the query, naming the ticket endpoint, and a forged ticket', async () => {
    const answer = await fetch(`${url}?access_token=${encodeURIComponent(token)}`);
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { error: string }).error).toMatch(
      /^access_token is not taken in a URL: POST \/api\/v1\/events\/stream-tickets/,
    );
    const forged = await fetch(`${url}?ticket=${encodeURIComponent(token)}`);
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ error: 'Stream ticket is invalid or has expired' });
  });

  it("counts a ticket's connection against its user for the rate limit, not against the address", async () => {
    const asked = await t.request('POST', '/api/v1/events/stream-tickets', { token });
    const client = await SseClient.connect(`${url}?ticket=${encodeURIComponent(asked.body.ticket)}`);
    clients.push(client);
    expect(Number(client.response.headers.get('ratelimit-remaining'))).toBe(Number(asked.headers['ratelimit-remaining']) - 1);
  });

  it('sends a live event as one frame: id, event type and the envelope as data', async () => {
    const client = await connect();
    const event = await record(t, 'conversation.assigned', { conversation_id: 'conv_1', assignee_id: 'user_2' });
    await publish(t, event);
    await client.until((c) => c.events.length >= 1);
    expect(client.events[0]).toEqual({ kind: 'event', id: event.id, event: 'conversation.assigned', data: JSON.stringify(event) });
    expect(JSON.parse(client.events[0].data)).toEqual({
      id: event.id,
      type: 'conversation.assigned',
      created_at: event.created_at,
      data: { conversation_id: 'conv_1', assignee_id: 'user_2' },
    });
  });

  it("streams the workspace's changes as they are made: a note as note.created, labels as conversation.updated", async () => {
    const admin = await t.adminToken();
    const { id } = await customerWrites(t);
    const client = await connect();
    const label = await t.request('POST', '/api/v1/labels', { token: admin, body: { name: 'streamed' } });
    expect(label.status).toBe(201);
    const labelled = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { labels: ['streamed'] } });
    const note = await t.request('POST', `/api/v1/conversations/${id}/notes`, { token: admin, body: { text: 'Streamed note' } });
    await client.until((c) => c.events.some((e) => e.event === 'note.created'));
    const frames = client.events.filter((e) => e.event === 'conversation.updated' || e.event === 'note.created');
    expect(frames.map((e) => [e.event, JSON.parse(e.data).data])).toEqual([
      ['conversation.updated', { conversation: asInEvents(labelled.body), changes: { labels: { from: [], to: ['streamed'] } } }],
      ['note.created', { message: note.body, conversation: expect.objectContaining({ id, labels: ['streamed'] }) }],
    ]);
  });

  it('starts a stream without Last-Event-ID at the newest event, from which a client that saw none resumes', async () => {
    const before = await record(t);
    const client = await connect();
    await client.until((c) => c.positions.length === 1);
    expect(client.positions).toEqual([before.id]);
    expect(client.events).toEqual([]);
    await client.close();
    const missed = await record(t);
    const resumed = await connect({ 'last-event-id': client.positions[0] });
    await resumed.until((c) => c.events.length >= 1);
    expect(resumed.events.map((e) => e.id)).toEqual([missed.id]);
    expect(resumed.positions).toEqual([]);
  });

  it("starts at the newest event the caller may see: never another user's own event, but the caller's", async () => {
    const shared = await record(t);
    const [ana, bob] = [await t.createUser(), await t.createUser()];
    const forAna = await t.app.get(DataSource).transaction(async (manager) => {
      const recorded = await t.app
        .get(EventsService)
        .recordForUser(manager, uuidOfUser(ana.id), 'notification.created', { n: Math.random() } as never);
      await t.app.get(EventRepository).markRelayed(manager, [recorded.id]);
      return toEnvelope(recorded);
    });
    const bobClient = await SseClient.connect(url, { authorization: `Bearer ${bob.token}` });
    const anaClient = await SseClient.connect(url, { authorization: `Bearer ${ana.token}` });
    clients.push(bobClient, anaClient);
    await bobClient.until((c) => c.positions.length === 1);
    await anaClient.until((c) => c.positions.length === 1);
    expect(bobClient.positions).toEqual([shared.id]);
    expect(anaClient.positions).toEqual([forAna.id]);
  });

  it("sends the caller's tab counts when it starts, and again when an event changes them", async () => {
    const agent = await t.createUser();
    const client = await SseClient.connect(url, { authorization: `Bearer ${agent.token}` });
    clients.push(client);
    await client.until((c) => c.frames('counts').length === 1);
    const [first] = client.frames('counts') as { open: number; unassigned: number; waiting: number; unread: number }[];
    const answered = await t.request('GET', '/api/v1/conversations/counts', { token: agent.token });
    expect(first).toEqual(answered.body);
    await customerWrites(t);
    await client.until((c) => c.frames('counts').length === 2);
    expect(client.frames('counts')[1]).toEqual({
      ...first,
      open: first.open + 1,
      unassigned: first.unassigned + 1,
      waiting: first.waiting + 1,
      unread: first.unread + 1,
    });
  });

  it('sends no counts frame for an event that leaves the counts as they were', async () => {
    const client = await connect();
    await client.until((c) => c.frames('counts').length === 1);
    const admin = await t.adminToken();
    const contact = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: '+16315550199', name: 'Uncounted' } });
    expect(contact.status).toBe(201);
    // A customer's message after it changes them: the one frame that follows is that one.
    await customerWrites(t);
    await client.until((c) => c.frames('counts').length >= 2 && c.events.some((e) => e.event === 'message.received'));
    expect(client.events.some((e) => e.event === 'contact.created')).toBe(true);
    expect(client.frames('counts')).toHaveLength(2);
  });

  it("sends the reader's counts again after they read a conversation, which records no event", async () => {
    const agent = await t.createUser();
    // The customer's events are sent before the agent's stream opens (an admin's stream says when),
    // so no frame they would cause comes after the read.
    const watcher = await connect();
    const { id } = await customerWrites(t);
    await watcher.until((c) => c.events.some((e) => e.event === 'message.received'));
    const client = await SseClient.connect(url, { authorization: `Bearer ${agent.token}` });
    clients.push(client);
    await client.until((c) => c.frames('counts').length === 1);
    const [before] = client.frames('counts') as { unread: number }[];
    const read = await t.request('POST', `/api/v1/conversations/${id}/read`, { token: agent.token });
    expect(read.status).toBe(200);
    await client.until((c) => c.frames('counts').length === 2);
    expect(client.frames('counts')[1]).toEqual({ ...before, unread: before.unread - 1 });
  });

  it('resumes after Last-Event-ID: the missed events in order, then live ones, none twice', async () => {
    const seen = await record(t);
    const missed = [await record(t), await record(t), await record(t)];
    const client = await connect({ 'last-event-id': seen.id });
    await client.until((c) => c.events.length >= 3);
    // The relay publishing the missed events only now, then a new one: only the new one is sent.
    const live = await record(t);
    await publish(t, ...missed, live);
    await client.until((c) => c.events.length >= 4);
    const last = await sendAndAwait(t, client);
    expect(client.events.map((e) => e.id)).toEqual([...missed, live, last].map((e) => e.id));
    expect(client.comments).toEqual([]);
  });

  it('sends an event published while the replay runs after the replayed ones, once', async () => {
    const seen = await record(t);
    const missed = [await record(t), await record(t)];
    const during = await record(t);
    const replay = t.app.get(EventReplayService);
    const cursorOf = replay.cursorOf.bind(replay);
    // Between the subscription and the reading of the table: the relay publishes a replayed one and a new one.
    const spy = jest.spyOn(replay, 'cursorOf').mockImplementation(async (id) => {
      await publish(t, missed[1], during);
      return cursorOf(id);
    });
    try {
      const client = await connect({ 'last-event-id': seen.id });
      await client.until((c) => c.events.length >= 3);
      const last = await sendAndAwait(t, client);
      expect(client.events.map((e) => e.id)).toEqual([...missed, during, last].map((e) => e.id));
    } finally {
      spy.mockRestore();
    }
  });

  it('replays a backlog of several batches completely, in order', async () => {
    const seen = await record(t);
    const count = EventReplayService.batchSize * 2 + 101;
    // One millisecond apart after `seen`, already relayed, numbered in that order.
    await t.sql(
      `INSERT INTO events (id, type, data, created_at, relayed_at, seq)
       SELECT gen_random_uuid(), 'contact.updated', jsonb_build_object('n', n), $1::timestamptz + n * interval '1 millisecond', now(), nextval('events_seq')
         FROM generate_series(1, $2::int) AS n`,
      [seen.created_at, count],
    );
    const expected = (
      await t.sql<{ id: string }>('SELECT id FROM events WHERE created_at > $1 ORDER BY created_at, id', [seen.created_at])
    ).map((row) => `evt_${row.id.replace(/-/g, '')}`);
    expect(expected).toHaveLength(count);
    const client = await connect({ 'last-event-id': seen.id });
    await client.until((c) => c.events.length >= count, 15_000);
    expect(client.events.map((e) => e.id)).toEqual(expected);
    expect(client.events.map((e) => (JSON.parse(e.data) as { data: { n: number } }).data.n)).toEqual(
      Array.from({ length: count }, (_, i) => i + 1),
    );
    // Partly stamped in the future: the next tests' resumes must not meet them.
    await t.sql('DELETE FROM events WHERE created_at > $1', [seen.created_at]);
  });

  it('resumes with an event written before the last one seen but relayed after it, as a long transaction does', async () => {
    const seen = await record(t);
    // Written a second before `seen` (its transaction began first), handed on only now.
    const late = await t.app.get(Database).transaction(async (db) => {
      const event = {
        id: newUuid(),
        type: 'contact.updated' as const,
        data: { late: true },
        created_at: new Date(Date.parse(seen.created_at) - 1_000),
        audience: null,
        inbox_id: null,
        automated: false,
      };
      await t.app.get(EventRepository).insert(db, event);
      await t.app.get(EventRepository).markRelayed(db, [event.id]);
      return toEnvelope(event);
    });
    const client = await connect({ 'last-event-id': seen.id });
    await client.until((c) => c.events.length >= 1);
    const last = await sendAndAwait(t, client);
    expect(client.events.map((e) => e.id)).toEqual([late.id, last.id]);
  });

  it('takes the last_event_id query parameter when there is no Last-Event-ID header', async () => {
    const seen = await record(t);
    const missed = await record(t);
    const client = await connect({}, `?last_event_id=${seen.id}`);
    await client.until((c) => c.events.length >= 1);
    expect(client.events[0].id).toBe(missed.id);
  });

  it.each([
    ['an unknown', `evt_${'0'.repeat(32)}`],
    ['a malformed', 'not-an-event-id\nevent: forged'],
  ])(
    'tells a client with %s Last-Event-ID to read again what it shows, from the newest place, then sends live events',
    async (_kind, lastEventId) => {
      const newest = await record(t);
      await publish(t, newest);
      const client = await connect({}, `?last_event_id=${encodeURIComponent(lastEventId)}`);
      await client.until((c) => c.frames('resync').length === 1);
      expect(client.frames('resync')).toEqual([{ reason: expect.stringMatching(/^Last-Event-ID is unknown or past retention/) }]);
      const live = await record(t);
      await publish(t, live);
      await client.until((c) => c.events.length >= 1);
      // The tab counts (another user frame) come whenever they are built: the order asserted is that of the rest.
      expect(client.items.filter((item) => !(item.kind === 'frame' && item.event === 'counts'))).toEqual([
        { kind: 'position', id: newest.id },
        expect.objectContaining({ kind: 'frame', event: 'resync' }),
        expect.objectContaining({ kind: 'event', id: live.id }),
      ]);
    },
  );

  it('sends a keep-alive comment at the interval', async () => {
    const interval = EventStreamClients.keepAliveIntervalMs;
    EventStreamClients.keepAliveIntervalMs = 50;
    try {
      const client = await connect();
      await client.until((c) => c.comments.length >= 2);
      expect(client.comments.slice(0, 2)).toEqual(['keep-alive', 'keep-alive']);
    } finally {
      EventStreamClients.keepAliveIntervalMs = interval;
    }
  });

  it('lets go of a client that disconnects', async () => {
    const streams = t.app.get(EventStreamClients);
    const client = await connect();
    await waitFor(() => streams.openCount === 1);
    await client.close();
    await waitFor(() => streams.openCount === 0);
    await publish(t, await record(t));
  });

  it('keeps nothing open for a client that leaves before its stream starts', async () => {
    const users = t.app.get(UsersService);
    const findForAuth = users.findForAuth.bind(users);
    let authenticating!: () => void;
    const started = new Promise<void>((resolve) => (authenticating = resolve));
    const spy = jest.spyOn(users, 'findForAuth').mockImplementation(async (id) => {
      authenticating();
      await pause(200);
      return findForAuth(id);
    });
    try {
      const abort = new AbortController();
      const request = fetch(url, {
        headers: { authorization: `Bearer ${token}`, 'x-request-id': 'left-before-start' },
        signal: abort.signal,
      }).catch(() => null);
      await started;
      abort.abort();
      expect(await request).toBeNull();
      // The server has handled the request to its end: it logs the stream closed.
      await waitFor(() => t.logs.some((line) => line.msg === 'event stream closed' && line.reqId === 'left-before-start'));
      expect(spy).toHaveBeenCalled();
      expect(t.app.get(EventStreamClients).openCount).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('event stream and shutdown', () => {
  it('ends open streams so that app.close() does not wait for them', async () => {
    const t = await startTestApp();
    const url = await listen(t);
    const client = await SseClient.connect(url, { authorization: `Bearer ${await t.adminToken()}` });
    expect(client.response.status).toBe(200);
    await waitFor(() => t.app.get(EventStreamClients).openCount === 1);
    // A stream left open would hold the close for good; 10 s leave the slow engine its own closing.
    const closed = await Promise.race([t.app.close().then(() => 'closed'), pause(10_000).then(() => 'still closing after 10 s')]);
    expect(closed).toBe('closed');
    await client.until((c) => c.ended);
    await t.database.drop();
  });
});

describeWithPostgresAndRedis('event stream across instances (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let prefix: string;
  let urlOfA: string;
  let urlOfB: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    prefix = freshRedisPrefix();
    a = await startTestApp({ database, env: { REDIS_PREFIX: prefix } });
    b = await startTestApp({ database, env: { REDIS_PREFIX: prefix } });
    urlOfA = await listen(a);
    urlOfB = await listen(b);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.drop();
  });

  it('delivers an event published on instance A to a client of instance B', async () => {
    const client = await SseClient.connect(urlOfB, { authorization: `Bearer ${await b.adminToken()}` });
    try {
      expect(client.response.status).toBe(200);
      const event = await record(a, 'message.received', { text: 'hello' });
      await publish(a, event);
      await client.until((c) => c.events.length >= 1);
      const last = await sendAndAwait(a, client);
      expect(client.events).toEqual([
        { kind: 'event', id: event.id, event: 'message.received', data: JSON.stringify(event) },
        expect.objectContaining({ id: last.id }),
      ]);
    } finally {
      await client.close();
    }
  });

  it("delivers an event for one user published on instance A to that user's client on instance B, and to no other", async () => {
    const ana = await a.createUser();
    const bob = await a.createUser();
    const anaClient = await SseClient.connect(urlOfB, { authorization: `Bearer ${ana.token}` });
    const bobClient = await SseClient.connect(urlOfB, { authorization: `Bearer ${bob.token}` });
    try {
      const own = await a.app.get(DataSource).transaction(async (manager) => {
        const recorded = await a.app
          .get(EventsService)
          .recordForUser(manager, uuidOfUser(ana.id), 'notification.created', { n: 1 } as never);
        await a.app.get(EventRepository).markRelayed(manager, [recorded.id]);
        return recorded;
      });
      await a.app.get(EventStream).publish([{ envelope: toEnvelope(own), audience: own.audience, inboxId: null }]);
      await anaClient.until((c) => c.events.some((e) => e.id === toEnvelope(own).id));
      const last = await sendAndAwait(a, bobClient);
      expect(bobClient.events.map((e) => e.id)).toEqual([last.id]);
    } finally {
      await anaClient.close();
      await bobClient.close();
    }
  });

  it('ends its streams when its Redis subscription was interrupted, and the clients resume from the table', async () => {
    const url = urlOfB;
    const authorization = `Bearer ${await b.adminToken()}`;
    const seen = await record(a);
    const client = await SseClient.connect(url, { authorization });
    const redis = new Redis(TEST_REDIS_URL!);
    try {
      const list = String(await redis.client('LIST'));
      const subscribers = list.split('\n').filter((line) => line.includes(` name=${prefix}events:subscriber `));
      expect(subscribers).toHaveLength(2);
      for (const line of subscribers) await redis.client('KILL', 'ID', /\bid=(\d+)/.exec(line)![1]);
      const missed = await record(a);
      await publish(a, missed);
      await client.until((c) => c.ended);

      const resumed = await SseClient.connect(url, { authorization, 'last-event-id': seen.id });
      try {
        const live = await record(a);
        await publish(a, live);
        await resumed.until((c) => c.events.length >= 2);
        const last = await sendAndAwait(a, resumed);
        expect(resumed.events.map((e) => e.id)).toEqual([missed.id, live.id, last.id]);
      } finally {
        await resumed.close();
      }
    } finally {
      redis.disconnect();
      await client.close();
    }
  });

  it('logs and skips a malformed message on the channel, and goes on streaming', async () => {
    const client = await SseClient.connect(urlOfA, { authorization: `Bearer ${await a.adminToken()}` });
    const redis = new Redis(TEST_REDIS_URL!);
    try {
      await redis.publish(`${prefix}events`, 'not json');
      await redis.publish(
        `${prefix}events`,
        JSON.stringify({ id: 'evt_x\nevent: forged', type: 'contact.created', created_at: '', data: {} }),
      );
      const event = await record(a);
      await publish(a, event);
      await client.until((c) => c.events.length >= 1);
      expect(client.events[0].id).toBe(event.id);
      // Nest's Logger writes to the last application created, so both instances' lines may be in either's logs.
      const warnings = [...a.logs, ...b.logs].filter((line) => String(line.msg).startsWith('Ignored a malformed message'));
      expect(warnings.length).toBeGreaterThanOrEqual(2);
      expect(warnings[0]).toMatchObject({ level: 40, context: 'RedisEventStream' });
    } finally {
      redis.disconnect();
      await client.close();
    }
  });
});

/**
 * Records, publishes and waits for one more event: whatever was sent to the client before it has
 * arrived by then, so a test can then say what did not come.
 */
async function sendAndAwait(t: TestApp, client: SseClient): Promise<EventEnvelope> {
  const event = await record(t);
  await publish(t, event);
  await client.until((c) => c.events.some((e) => e.id === event.id));
  return event;
}

async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await pause(10);
  }
}

describe("notification.created frames: the user's own stream only", () => {
  let t: TestApp;
  let url: string;
  let receiver: WebhookReceiver;
  const clients: SseClient[] = [];
  const connect = async (token: string, headers: Record<string, string> = {}): Promise<SseClient> => {
    const client = await SseClient.connect(url, { authorization: `Bearer ${token}`, ...headers });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    url = await listen(t);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** Assigns a new customer's conversation to `userId` (by the admin: a notification for the assignee). */
  async function assignTo(userId: string): Promise<string> {
    const { id } = await customerWrites(t);
    const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: await t.adminToken(), body: { assigned_to: userId } });
    expect(answer.status).toBe(200);
    return id;
  }

  /** A public event every stream gets: once it arrived, whatever was sent before it has too. */
  async function marker(): Promise<string> {
    const answer = await t.request('POST', '/api/v1/contacts', {
      token: await t.adminToken(),
      body: { phone: `+1415555${String(Math.floor(1000 + Math.random() * 8999))}` },
    });
    expect(answer.status).toBe(201);
    return answer.body.id as string;
  }

  const contactCreated = (id: string) => (c: SseClient) =>
    c.events.some(
      (e) => e.event === 'contact.created' && (JSON.parse(e.data) as { data: { contact: { id: string } } }).data.contact.id === id,
    );

  it('sends a user their notification as a notification.created frame, and another user never sees it', async () => {
    const ana = await t.createUser();
    const bob = await t.createUser();
    const anaStream = await connect(ana.token);
    const bobStream = await connect(bob.token);
    const conversationId = await assignTo(ana.id);
    await anaStream.until((c) => c.events.some((e) => e.event === 'notification.created'));
    const frame = anaStream.events.find((e) => e.event === 'notification.created')!;
    const envelope = JSON.parse(frame.data) as { id: string; type: string; data: { notification: Record<string, unknown> } };
    expect(frame.id).toBe(envelope.id);
    const [notification] = (await t.request('GET', '/api/v1/notifications', { token: ana.token })).body.data as { id: string }[];
    expect(envelope).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'notification.created',
      created_at: expect.any(String),
      data: {
        notification: {
          id: notification.id,
          type: 'conversation.assigned',
          conversation_id: conversationId,
          text: expect.any(String),
          created_at: expect.any(String),
          read_at: null,
        },
      },
    });

    // Bob sees the assignment, which is everyone's, and the marker after it, but not Ana's notification.
    const after = await marker();
    await bobStream.until(contactCreated(after));
    expect(bobStream.events.some((e) => e.event === 'conversation.assigned')).toBe(true);
    expect(bobStream.events.filter((e) => e.event === 'notification.created')).toEqual([]);
  });

  it("replays a user's own notifications after Last-Event-ID, and never another user's", async () => {
    const ana = await t.createUser();
    const bob = await t.createUser();
    const watcher = await connect(bob.token);
    const before = await marker();
    await watcher.until(contactCreated(before));
    const lastSeen = watcher.events.at(-1)!;
    await assignTo(ana.id);
    await assignTo(bob.id);
    const after = await marker();
    await watcher.until(contactCreated(after));

    const anaReplay = await connect(ana.token, { 'last-event-id': lastSeen.id! });
    const bobReplay = await connect(bob.token, { 'last-event-id': lastSeen.id! });
    await anaReplay.until(contactCreated(after));
    await bobReplay.until(contactCreated(after));
    const notificationsOf = (client: SseClient) =>
      client.events
        .filter((e) => e.event === 'notification.created')
        .map((e) => (JSON.parse(e.data) as { data: { notification: { id: string } } }).data.notification.id);
    const own = async (token: string) =>
      ((await t.request('GET', '/api/v1/notifications', { token })).body.data as { id: string }[]).map((n) => n.id);
    expect(notificationsOf(anaReplay)).toEqual(await own(ana.token));
    expect(notificationsOf(bobReplay)).toEqual(await own(bob.token));
    expect(notificationsOf(anaReplay)).toHaveLength(1);
  });

  it('never delivers notification.created to webhooks, not even to ["*"], and refuses it as a subscription', async () => {
    const registered = await t.request('POST', '/api/v1/webhooks', {
      token: await t.adminToken(),
      body: { url: receiver.url('/all'), events: ['*'], secret: 'a-webhook-secret-of-16+' },
    });
    expect(registered.status).toBe(201);
    const agent = await t.createUser();
    await assignTo(agent.id);
    const after = await marker();
    // Deliveries are not ordered: wait for both the assignment and the marker, whichever comes first.
    await eventually(async () => {
      const types = receiver.received('/all').map((d) => d.json.type as string);
      expect(types).toContain('conversation.assigned');
      expect(receiver.received('/all').some((d) => d.json.type === 'contact.created' && d.json.data.contact.id === after)).toBe(true);
    });
    expect(receiver.received('/all').map((d) => d.json.type as string)).not.toContain('notification.created');
    // The relay records every delivery of a batch at once, in event order: with the marker's there, none of the notification ever will be.
    expect(
      await t.sql(`SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.type = 'notification.created'`),
    ).toEqual([]);
    expect((await t.events('notification.created')).length).toBeGreaterThan(0);

    const refused = await t.request('POST', '/api/v1/webhooks', {
      token: await t.adminToken(),
      body: { url: receiver.url('/own'), events: ['notification.created'], secret: 'a-webhook-secret-of-16+' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^events must hold event types/);
  });
});

import { parsePublicId, toPublicId } from '../src/common/ids';
import { ReadRepository } from '../src/conversations/read.repository';
import { Database } from '../src/database/database';
import { eventually } from './support/channel';
import { messageWebhook } from './support/channel-fixtures';
import { describeWithPostgresAndRedis } from './support/environment';
import { createConversation } from './support/factories';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { startTestApp, startTwoInstances, TestApp } from './support/test-app';

const channelEnv = (graph: FakeGraphApi) => ({
  ...graph.channelEnv,
  MESSAGING_RETRY_SCHEDULE: '50ms,50ms',
});

async function channelIdOf(t: TestApp, messageId: string): Promise<string> {
  const [row] = await t.sql<{ channel_message_id: string }>('SELECT channel_message_id FROM messages WHERE id::text = $1', [
    parsePublicId('msg', messageId)!,
  ]);
  return row.channel_message_id;
}

/** A customer who wrote: their conversation and the wamid of their (newest) message. */
async function customerWithMessage(t: TestApp, text = 'Hello'): Promise<{ id: string; phone: string; wamid: string }> {
  const { id, phone } = await customerWrites(t, { text });
  const thread = await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: await t.adminToken() });
  return { id, phone, wamid: await channelIdOf(t, thread.body.data[0].id as string) };
}

describe('reading a conversation', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({ env: channelEnv(graph) });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const read = (conversationId: string, token = admin) => t.request('POST', `/api/v1/conversations/${conversationId}/read`, { token });
  const markerOf = async (conversationId: string, userId: string) =>
    (
      await t.sql<{ last_read_message_id: string }>(
        'SELECT last_read_message_id FROM conversation_reads WHERE conversation_id::text = $1 AND user_id::text = $2',
        [parsePublicId('conv', conversationId)!, parsePublicId('user', userId)!],
      )
    )[0]?.last_read_message_id;

  it("answers the conversation and tells the channel that the customer's newest message was read", async () => {
    const { id, wamid } = await customerWithMessage(t);
    const answer = await read(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual((await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body);
    await eventually(async () => expect(graph.readReceipts(wamid)).toHaveLength(1));
    expect(graph.readReceipts(wamid)[0]).toMatchObject({
      method: 'POST',
      path: '/106540352242922/messages',
      authorization: 'Bearer graph-token',
      body: { messaging_product: 'whatsapp', status: 'read', message_id: wamid },
    });
  });

  it('sends one receipt per message however many agents read it, how often', async () => {
    const { id, wamid } = await customerWithMessage(t);
    const agent = await t.createUser({ role: 'agent' });
    const answers = await Promise.all([read(id), read(id, agent.token), read(id), read(id, agent.token)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    await eventually(async () => expect(graph.readReceipts(wamid)).toHaveLength(1));
    // The customer writes again: the next read marks the new message, once.
    const { phone } = await t.request('GET', `/api/v1/conversations/${id}`, { token: admin }).then((a) => a.body.customer);
    await t.request('POST', '/api/webhooks/messaging', {
      body: messageWebhook(phone!.slice(1), { type: 'text', text: { body: 'again' } }),
    });
    const thread = await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: admin });
    const second = await channelIdOf(t, thread.body.data[0].id as string);
    await read(id, agent.token);
    await read(id);
    await eventually(async () => expect(graph.readReceipts(second)).toHaveLength(1));
    expect(graph.readReceipts(wamid)).toHaveLength(1);
    const [row] = await t.sql<{ count: string }>('SELECT count(*)::text AS count FROM read_receipts WHERE channel_message_id = ANY($1)', [
      [wamid, second],
    ]);
    expect(row.count).toBe('2');
  });

  it("marks the newest customer message read even when an agent's reply came after it", async () => {
    const { id, wamid } = await customerWithMessage(t);
    const reply = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'text', text: 'hi' } });
    await read(id);
    await eventually(async () => expect(graph.readReceipts(wamid)).toHaveLength(1));
    expect(await markerOf(id, (await t.request('GET', '/api/v1/me', { token: admin })).body.id)).toBe(
      parsePublicId('msg', reply.body.id as string),
    );
  });

  it("moves each reader's own marker to the newest message, and never back", async () => {
    const { id } = await customerWithMessage(t);
    const agent = await t.createUser({ role: 'agent' });
    await read(id, agent.token);
    const thread = await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: admin });
    const first = parsePublicId('msg', thread.body.data[0].id as string);
    expect(await markerOf(id, agent.id)).toBe(first);
    const adminId = (await t.request('GET', '/api/v1/me', { token: admin })).body.id as string;
    expect(await markerOf(id, adminId)).toBeUndefined();
    const later = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'text', text: 'later' } });
    await read(id, agent.token);
    expect(await markerOf(id, agent.id)).toBe(parsePublicId('msg', later.body.id as string));
    // An older read that lands late (a slower request) does not move it back.
    const [older] = await t.sql<{ created_at: Date }>('SELECT created_at FROM messages WHERE id = $1::uuid', [first]);
    await t.app.get(ReadRepository).advanceMarker(t.app.get(Database).db, {
      conversationId: parsePublicId('conv', id)!,
      userId: parsePublicId('user', agent.id)!,
      newestMessageId: first!,
      newestCreatedAt: older.created_at,
      at: new Date(),
    });
    expect(await markerOf(id, agent.id)).toBe(parsePublicId('msg', later.body.id as string));
  });

  it('retries a receipt the channel answered with a 5xx', async () => {
    const { id, wamid } = await customerWithMessage(t);
    graph.failNextReadReceipts({ status: 500, body: { error: { message: 'An unknown error occurred', code: 1 } } });
    await read(id);
    await eventually(async () => expect(graph.readReceipts(wamid)).toHaveLength(2));
    await eventually(async () => {
      const [row] = await t.sql<{ status: string }>('SELECT status FROM read_receipts WHERE channel_message_id = $1', [wamid]);
      expect(row.status).toBe('sent');
    });
  });

  it('answers 404 for an unknown conversation, and a conversation without messages reads fine', async () => {
    expect((await read('conv_00000000000070008000000000000000')).status).toBe(404);
    expect((await read('msg_00000000000070008000000000000000')).status).toBe(404);
    const empty = toPublicId('conv', (await createConversation(t)).id);
    const answer = await read(empty);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(empty);
  });
});

describe('read receipts turned off (MESSAGING_READ_RECEIPTS=false)', () => {
  it('moves the reader’s marker and tells the channel nothing, not even "typing…", which is a read receipt', async () => {
    const graph = await FakeGraphApi.start();
    const t = await startTestApp({ env: { ...channelEnv(graph), MESSAGING_READ_RECEIPTS: 'false' } });
    try {
      const { id } = await customerWithMessage(t);
      const admin = await t.adminToken();
      expect((await t.request('POST', `/api/v1/conversations/${id}/read`, { token: admin })).status).toBe(200);
      expect((await t.request('POST', `/api/v1/conversations/${id}/typing`, { token: admin })).status).toBe(204);
      // A message sent after the read: by the time it reaches the channel, a receipt would have too.
      const sent = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'text', text: 'x' } });
      await eventually(async () => expect(await channelIdOf(t, sent.body.id as string)).toEqual(expect.any(String)));
      expect(graph.readReceipts()).toEqual([]);
      expect(graph.typingIndicators()).toEqual([]);
      expect(await t.sql('SELECT 1 FROM read_receipts')).toEqual([]);
      expect(await t.sql('SELECT 1 FROM conversation_reads')).toHaveLength(1);
    } finally {
      await t.close();
      await graph.close();
    }
  });
});

describe('the sandbox channel', () => {
  it('accepts read receipts locally', async () => {
    const t = await startTestApp();
    try {
      const { id } = await customerWithMessage(t);
      expect((await t.request('POST', `/api/v1/conversations/${id}/read`, { token: await t.adminToken() })).status).toBe(200);
      await eventually(async () => {
        const [row] = await t.sql<{ status: string }>('SELECT status FROM read_receipts');
        expect(row.status).toBe('sent');
      });
      expect(t.logs.some((line) => String(line.msg).startsWith('Sandbox accepted a read receipt for wamid.'))).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describeWithPostgresAndRedis('read receipts with two replicas (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  it('sends one receipt when agents read the same conversation on both', async () => {
    const graph = await FakeGraphApi.start();
    const { a, b, close } = await startTwoInstances(channelEnv(graph));
    try {
      const { id, wamid } = await customerWithMessage(a);
      const agent = await b.createUser({ role: 'agent' });
      const answers = await Promise.all([
        a.request('POST', `/api/v1/conversations/${id}/read`, { token: await a.adminToken() }),
        b.request('POST', `/api/v1/conversations/${id}/read`, { token: agent.token }),
        b.request('POST', `/api/v1/conversations/${id}/read`, { token: await b.adminToken() }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      await eventually(async () => expect(graph.readReceipts(wamid)).toHaveLength(1));
      // A send recorded after the reads: by the time it reaches the channel, a second receipt would have too.
      const sent = await b.request('POST', `/api/v1/conversations/${id}/messages`, {
        token: agent.token,
        body: { type: 'text', text: 'x' },
      });
      await eventually(async () => expect(await channelIdOf(a, sent.body.id as string)).toEqual(expect.any(String)));
      expect(graph.readReceipts(wamid)).toHaveLength(1);
    } finally {
      await close();
      await graph.close();
    }
  });
});

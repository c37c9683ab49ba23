import { parsePublicId } from '../src/common/ids';
import { channelStatus, channelWebhook, eventually } from './support/channel';
import { nextMillisecond } from './support/clock';
import { FakeGraphApi } from './support/fake-graph-api';
import { TEST_DATABASE_URL } from './support/environment';
import { customerWrites } from './support/inbox';
import { RowHolder } from './support/row-locks';
import { startTestApp, TestApp } from './support/test-app';

interface Row {
  id: string;
  labels: string[];
  unread_count: number;
  last_message: { id: string; text: string | null; direction: string; status: string } | null;
}

/**
 * What a row of the list shows is kept on the conversation by triggers (ListRowColumns1764230000000):
 * the preview (its status read from the message), the number of the customer's messages against each reader's, the label names. These
 * check it through the list after each kind of change, and against what the messages and labels say.
 */
describe('what a row of the conversation list keeps', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({ env: graph.channelEnv });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const rowOf = async (id: string, token = admin): Promise<Row> => {
    const { phone } = (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body.customer;
    const list = await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(phone!)}`, { token });
    return (list.body.data as unknown as Row[]).find((row) => row.id === id)!;
  };
  const reply = async (id: string, text: string) => {
    const answer = await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'text', text } });
    expect(answer.status).toBe(201);
    return eventually(async () => {
      const [row] = await t.sql<{ channel_message_id: string | null }>('SELECT channel_message_id FROM messages WHERE id::text = $1', [
        parsePublicId('msg', answer.body.id)!,
      ]);
      expect(row.channel_message_id).toBeTruthy();
      return { id: answer.body.id, wamid: row.channel_message_id! };
    });
  };
  const channelSays = async (wamid: string, status: string) =>
    expect(
      (await t.request('POST', '/api/webhooks/messaging', { body: channelWebhook({ statuses: [channelStatus(wamid, status)] }) })).status,
    ).toBe(200);

  it("previews the newest message of the exchange with the status the channel last gave it, never a note, and a newer message's own", async () => {
    const { id, phone } = await customerWrites(t, { text: 'Where is my parcel?' });
    expect((await rowOf(id)).last_message).toMatchObject({ text: 'Where is my parcel?', direction: 'inbound', status: 'received' });
    await nextMillisecond();
    const sent = await reply(id, 'It left today');
    await channelSays(sent.wamid, 'delivered');
    expect((await rowOf(id)).last_message).toMatchObject({ id: sent.id, text: 'It left today', status: 'delivered' });
    await t.request('POST', `/api/v1/conversations/${id}/notes`, { token: admin, body: { text: 'Called the courier' } });
    expect((await rowOf(id)).last_message).toMatchObject({ id: sent.id, status: 'delivered' });
    await nextMillisecond();
    await customerWrites(t, { phone: phone.slice(1), text: 'Thanks!' });
    // A status of a message that is no longer the newest leaves the preview as it is.
    await channelSays(sent.wamid, 'read');
    const thread = await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: admin });
    expect(thread.body.data.find((message) => message.id === sent.id)?.status).toBe('read');
    expect((await rowOf(id)).last_message).toMatchObject({ text: 'Thanks!', direction: 'inbound', status: 'received' });
  });

  // Only PostgreSQL has a second connection to hold the conversation with while the service works.
  (TEST_DATABASE_URL ? it : it.skip)(
    'applies a status of the previewed message while the conversation is held, as a customer message in it holds it',
    async () => {
      const { id } = await customerWrites(t, { text: 'Is it in stock?' });
      await nextMillisecond();
      const sent = await reply(id, 'Yes, two left');
      const holder = await RowHolder.start(t);
      let applied: Promise<void> | undefined;
      try {
        await holder.query('SELECT id FROM conversations WHERE id = $1 FOR NO KEY UPDATE', [parsePublicId('conv', id)]);
        // Waiting for the conversation here is how the status and the customer's message deadlocked.
        applied = channelSays(sent.wamid, 'delivered');
        expect(await holder.finishesWithoutWaiting(applied)).toBe('finished');
      } finally {
        await holder.end();
        await applied;
      }
      expect((await rowOf(id)).last_message).toMatchObject({ id: sent.id, status: 'delivered' });
    },
  );

  it("counts each reader's unread messages from their own marker, through a merge of two customers' threads", async () => {
    const agent = await t.createUser();
    const a = await customerWrites(t, { text: 'a1' });
    await t.request('POST', `/api/v1/conversations/${a.id}/read`, { token: admin });
    await nextMillisecond();
    const b = await customerWrites(t, { text: 'b1' });
    await nextMillisecond();
    await customerWrites(t, { phone: b.phone.slice(1), text: 'b2' });
    expect((await rowOf(a.id)).unread_count).toBe(0);
    expect((await rowOf(a.id, agent.token)).unread_count).toBe(1);

    const contactOf = async (phone: string) =>
      (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(phone)}`, { token: admin })).body.data[0].id as string;
    const merged = await t.request('POST', `/api/v1/contacts/${await contactOf(a.phone)}/merge`, {
      token: admin,
      body: { from: await contactOf(b.phone) },
    });
    expect(merged.status).toBe(200);
    // The admin read a1 only: b1 and b2 came after their marker. The agent has read nothing.
    expect((await rowOf(a.id)).unread_count).toBe(2);
    expect((await rowOf(a.id, agent.token)).unread_count).toBe(3);
    expect((await rowOf(a.id)).last_message).toMatchObject({ text: 'b2' });
    await t.request('POST', `/api/v1/conversations/${a.id}/read`, { token: admin });
    expect((await rowOf(a.id)).unread_count).toBe(0);
  });

  it('holds for every conversation what its messages, markers and labels say, also after one statement wrote to many threads', async () => {
    const threads = [await customerWrites(t), await customerWrites(t), await customerWrites(t)];
    const ids = threads.map((thread) => parsePublicId('conv', thread.id)!);
    // As a campaign or an import writes: one statement, several messages in several conversations.
    await t.sql(
      `INSERT INTO messages (id, conversation_id, direction, type, text, content, status, created_at, updated_at)
       SELECT gen_random_uuid(), c, d, 'text', d || ' ' || i, '{}', CASE d WHEN 'inbound' THEN 'received' ELSE 'sent' END,
              now() + (i * 10 + (d = 'outbound')::int) * interval '1 ms', now()
         FROM unnest($1::uuid[]) c, generate_series(1, 4) i, unnest(ARRAY['inbound', 'internal', 'outbound']) d`,
      [ids],
    );
    const disagreeing = await t.sql<{ id: string }>(
      `SELECT c.id FROM conversations c
        LEFT JOIN LATERAL (SELECT m.id, m.direction, m.type, m.text, m.created_at FROM messages m
                            WHERE m.conversation_id = c.id AND m.direction <> 'internal' ORDER BY m.created_at DESC, m.id DESC LIMIT 1) lm ON true
        WHERE (c.preview_id, c.preview_direction, c.preview_type, c.preview_text, c.preview_created_at)
                IS DISTINCT FROM (lm.id, lm.direction, lm.type, lm.text, lm.created_at)
           OR c.inbound_count <> (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.direction = 'inbound')
           OR c.label_names <> ARRAY(SELECT l.name FROM conversation_labels cl JOIN labels l ON l.id = cl.label_id
                                      WHERE cl.conversation_id = c.id ORDER BY l.name)::text[]
           OR EXISTS (SELECT 1 FROM conversation_reads r WHERE r.conversation_id = c.id
                       AND r.inbound_read <> (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.direction = 'inbound'
                                                AND (m.created_at, m.id) <= (r.last_read_at, r.last_read_message_id)))`,
    );
    expect(disagreeing).toEqual([]);
    // Not vacuous: the threads hold what the statement wrote.
    const row = await rowOf(threads[0].id);
    expect(row.last_message).toMatchObject({ text: 'outbound 4', direction: 'outbound' });
    expect(row.unread_count).toBe(5);
  });
});

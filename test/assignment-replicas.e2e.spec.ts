import { messagesWebhook } from '../scripts/lib/channel-webhook';
import { parsePublicId } from '../src/common/ids';
import { channelMessage, eventually } from './support/channel';
import { describeWithPostgresAndRedis } from './support/environment';
import { startTwoInstances, TestApp } from './support/test-app';

const AGENTS = 10;
const CAPACITY = 20;
const CONVERSATIONS = 500;
/** How many customers write at the same moment, half through each instance. */
const CONCURRENT_CUSTOMERS = 20;

describeWithPostgresAndRedis('the router on two instances (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let a: TestApp;
  let b: TestApp;
  let close: () => Promise<void>;
  let admin: string;
  let inboxId: string;
  const agentIds: string[] = [];
  const number = '720000000000001';

  beforeAll(async () => {
    ({ a, b, close } = await startTwoInstances());
    admin = await a.adminToken();
    const created = await a.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: 'Replicated', phone_number_id: number, access_token: 'token' },
    });
    inboxId = created.body.id;
    for (let i = 0; i < AGENTS; i += 1) {
      const agent = await a.createUser({ name: `Replica Agent ${i}`, inbox_ids: [inboxId] });
      // Online without a stream: present for AVAILABILITY_TIMEOUT (5 minutes), longer than the test.
      expect((await b.request('PATCH', '/api/v1/me', { token: agent.token, body: { availability: 'online' } })).status).toBe(200);
      agentIds.push(agent.id);
    }
    const set = await b.request('PATCH', `/api/v1/inboxes/${inboxId}`, {
      token: admin,
      body: { assignment: { mode: 'balanced', capacity: CAPACITY } },
    });
    expect(set.status).toBe(200);
  }, 60_000);
  afterAll(() => close());

  const loads = async () => {
    const rows = await a.sql<{ assigned_to: string | null; count: number }>(
      'SELECT assigned_to, count(*)::int AS count FROM conversations WHERE inbox_id = $1 GROUP BY assigned_to',
      [parsePublicId('inb', inboxId)],
    );
    return new Map(rows.map((row) => [row.assigned_to, row.count]));
  };
  const assignmentsPerConversation = () =>
    a.sql<{ times: number }>(
      `SELECT count(*)::int AS times FROM events WHERE type = 'conversation.assigned' AND data->>'assigned_to' IS NOT NULL
        GROUP BY data->'conversation'->>'id' ORDER BY 1 DESC LIMIT 1`,
    );

  it('hands 500 conversations written at once through both to 10 agents of capacity 20: 20 each, none twice, the rest waiting', async () => {
    let next = 0;
    const write = async (lane: number) => {
      for (;;) {
        const i = next++;
        if (i >= CONVERSATIONS) return;
        const from = String(3_200_000_000 + i);
        const instance = lane % 2 === 0 ? a : b;
        const answer = await instance.request('POST', '/api/webhooks/messaging', {
          body: messagesWebhook(
            {
              contacts: [{ wa_id: from, profile: { name: `Replica ${i}` } }],
              messages: [channelMessage({ from, payload: { body: 'Hi' } })],
            },
            { phoneNumberId: number },
          ),
        });
        expect(answer.status).toBe(200);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_CUSTOMERS }, (_, lane) => write(lane)));

    await eventually(async () => {
      const counts = await loads();
      expect(agentIds.map((id) => counts.get(parsePublicId('user', id)))).toEqual(agentIds.map(() => CAPACITY));
      expect(counts.get(null)).toBe(CONVERSATIONS - AGENTS * CAPACITY);
    }, 30_000);
    expect(await assignmentsPerConversation()).toEqual([{ times: 1 }]);
    const counts = await b.request('GET', `/api/v1/conversations/counts?inbox_id=${inboxId}`, { token: admin });
    expect(counts.body.waiting).toBe(CONVERSATIONS - AGENTS * CAPACITY);

    // Room for everyone: the queue drains, shared by both instances, and still nobody twice.
    const raisedAt = Date.now();
    await a.request('PATCH', `/api/v1/inboxes/${inboxId}`, { token: admin, body: { assignment: { mode: 'balanced', capacity: 50 } } });
    await eventually(async () => expect((await loads()).get(null)).toBeUndefined(), 30_000);
    const seconds = (Date.now() - raisedAt) / 1000;
    const perAgent = await loads();
    expect([...perAgent.values()]).toEqual(agentIds.map(() => 50));
    expect(await assignmentsPerConversation()).toEqual([{ times: 1 }]);
    const failedTurns = [...a.logs, ...b.logs].filter((line) => String(line.msg ?? line.message ?? '').includes('Router turn failed'));
    expect(failedTurns).toEqual([]);
    process.stdout.write(
      `router on two instances: ${CONVERSATIONS - AGENTS * CAPACITY} waiting conversations handed out in ${seconds.toFixed(2)} s ` +
        `(${Math.round((CONVERSATIONS - AGENTS * CAPACITY) / seconds)} assignments/s, this figure includes up to one 1 s turn)\n`,
    );
  }, 120_000);
});

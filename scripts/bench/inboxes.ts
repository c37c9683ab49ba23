import { parsePublicId } from '../../src/common/ids';
import { FOLD_COUNTERS } from '../../src/conversations/conversation.repository';
import { withClient } from './database';
import { warnIfMachineBusy } from './machine';
import { type Figures, type Load, measure } from './measure';
import { printRatio, printTable, type Row } from './report';
import { describeSize, type SeedSize } from './seed-sql';

const INBOXES = 20;
const AGENTS = 200;
/** Each agent works this many inboxes: the agent of 3. */
const INBOXES_PER_AGENT = 3;
/** "Within 10 % of today's figures": the agent of 3 inboxes keeps at least 90 % of the throughput. */
const GOAL_PERCENT = 90;
const BENCH_AGENT_PASSWORD = 'bench-inbox-agent-password';
const CASES: { name: string; path: string }[] = [
  { name: 'list', path: '/api/v1/conversations?limit=50' },
  { name: 'open list', path: '/api/v1/conversations?limit=50&status=open' },
  { name: 'counts', path: '/api/v1/conversations/counts' },
  { name: 'search "refund"', path: '/api/v1/messages/search?q=refund' },
];

export interface InboxesContext {
  serviceUrl: string;
  /** The bench admin's token: today's figures are theirs (every conversation in sight). */
  token: string;
  databaseUrl: string;
  size: SeedSize;
  load: Load;
}

/**
 * Several numbers at scale: the seeded conversations measured as they are (one inbox, as every
 * install before inboxes), then spread over 20 inboxes with 200 agents each a member of 3, and the
 * same requests measured for one of those agents, who sees 3/20 of them through the membership
 * condition, and for the admin; then everything moved back and today measured again, since the
 * agent is compared with the mean of the two. Leaves the database as it found it (everything back in the default inbox, the bench
 * inboxes and agents deleted), so the next run, and the sections after this one, see the seed.
 */
export async function benchInboxes(context: InboxesContext): Promise<Row[]> {
  const admin = { authorization: `Bearer ${context.token}` };
  const today = await measureCases(context, admin, 'today (one inbox, admin)');

  const created: string[] = [];
  for (let n = 1; n < INBOXES; n++) {
    const answer = await post(context, '/api/v1/inboxes', admin, {
      name: `Bench inbox ${n}`,
      phone_number_id: String(900_000_000_000_000 + n),
      access_token: 'bench-no-channel',
    });
    created.push(answer.id as string);
  }
  const agent = await post(context, '/api/v1/users', admin, {
    email: `bench-inbox-agent-${Date.now()}@example.com`,
    name: 'Bench Inbox Agent',
    role: 'agent',
    password: BENCH_AGENT_PASSWORD,
    inbox_ids: created.slice(0, INBOXES_PER_AGENT),
  });
  let restored = false;
  try {
    const spread = await withClient(context.databaseUrl, async (client) => {
      const started = performance.now();
      // Each conversation to one of the 20 inboxes (the default one and the 19 made above) by a hash
      // of its id: not by its number, which the seed also picks each thread's latest text by, so
      // an inbox would hold only threads ending with one text. Its messages follow (a trigger).
      await client.query(
        `WITH ids AS (SELECT array_agg(id ORDER BY created_at, id) AS all_ids FROM inboxes)
         UPDATE conversations c SET inbox_id = ids.all_ids[1 + abs(hashtext(c.id::text)) % ${INBOXES}] FROM ids`,
      );
      const moved = performance.now() - started;
      await client.query(FOLD_COUNTERS.compile().text);
      // 199 more agents, each in 3 inboxes in turn (they exist for the memberships' size; nobody logs in as them).
      await client.query(
        `INSERT INTO users (id, email, name, role, password_hash, beta_access, created_at, updated_at)
         SELECT gen_random_uuid(), 'bench-inbox-member-' || n || '@example.com', 'Member ' || n, 'agent', 'bench-seed: no login', true, now(), now()
           FROM generate_series(1, ${AGENTS - 1}) n`,
      );
      await client.query(
        `INSERT INTO inbox_members (user_id, inbox_id)
         SELECT u.id, i.ids[1 + ((u.n * ${INBOXES_PER_AGENT} + k) % ${INBOXES})]
           FROM (SELECT id, row_number() OVER (ORDER BY email) AS n FROM users WHERE email LIKE 'bench-inbox-member-%') u,
                (SELECT array_agg(id ORDER BY created_at, id) AS ids FROM inboxes) i, generate_series(0, ${INBOXES_PER_AGENT - 1}) k
         ON CONFLICT DO NOTHING`,
      );
      // The moves leave a dead row per message and conversation, and the fold one per ledger row it
      // took: vacuumed now, not by autovacuum while measuring (the counts would read the dead rows).
      await client.query('VACUUM (ANALYZE) messages, conversations, conversation_counters, inbox_members');
      return moved;
    });
    console.log(
      `\n${describeSize(context.size)} spread over ${INBOXES} inboxes in ${(spread / 1000).toFixed(1)} s; ${AGENTS} agents, each a member of ${INBOXES_PER_AGENT}`,
    );
    const login = await post(context, '/api/v1/auth/login', {}, { email: agent.email, password: BENCH_AGENT_PASSWORD });
    const agentAuth = { authorization: `Bearer ${login.token as string}` };
    const asAgent = await measureCases(context, agentAuth, `agent of ${INBOXES_PER_AGENT} of ${INBOXES} inboxes`);
    const asAdmin = await measureCases(context, admin, `admin, ${INBOXES} inboxes`);
    await restore(context, created, agent.email as string);
    restored = true;
    // Today again, after the others: the agent's figures are compared with the mean of the runs
    // before and after them, so that what drifts over a run (the service's heap, caches, the
    // machine) weighs on both sides alike.
    const todayAgain = await measureCases(context, admin, 'today again (one inbox, admin)');

    const rows: Row[] = [];
    for (const [i, { name }] of CASES.entries()) {
      rows.push(
        { name: `${name}: today`, figures: today[i] },
        { name: `${name}: agent of ${INBOXES_PER_AGENT}/${INBOXES}`, figures: asAgent[i] },
        { name: `${name}: admin of ${INBOXES}`, figures: asAdmin[i] },
        { name: `${name}: today again`, figures: todayAgain[i] },
      );
    }
    printTable(`Inboxes (${describeSize(context.size)}, ${context.load.connections} connections)`, rows);
    for (const [i, { name }] of CASES.entries()) {
      const reference = { ...today[i], rps: (today[i].rps + todayAgain[i].rps) / 2 };
      printRatio(`${name}: agent of ${INBOXES_PER_AGENT} inboxes / today, before and after (req/s)`, asAgent[i], reference, GOAL_PERCENT);
    }
    return rows;
  } finally {
    if (!restored) await restore(context, created, agent.email as string);
  }
}

/** Everything back in the default inbox, the bench's inboxes and agents deleted, what the moves left vacuumed. */
async function restore(context: InboxesContext, created: string[], agentEmail: string): Promise<void> {
  await withClient(context.databaseUrl, async (client) => {
    await client.query(
      `UPDATE conversations SET inbox_id = (SELECT id FROM inboxes WHERE is_default) WHERE inbox_id <> (SELECT id FROM inboxes WHERE is_default)`,
    );
    await client.query(FOLD_COUNTERS.compile().text);
    await client.query(`DELETE FROM users WHERE email LIKE 'bench-inbox-member-%' OR email = $1`, [agentEmail]);
    await client.query('DELETE FROM inboxes WHERE id = ANY($1::uuid[])', [created.map((id) => parsePublicId('inb', id))]);
    await client.query('VACUUM (ANALYZE) messages, conversations, conversation_counters');
  });
}

async function measureCases(context: InboxesContext, headers: Record<string, string>, who: string): Promise<Figures[]> {
  const figures: Figures[] = [];
  for (const { name, path } of CASES) {
    await warnIfMachineBusy(`before ${name} (${who})`);
    console.log(`measuring ${path} as ${who} ...`);
    figures.push(await measure({ url: `${context.serviceUrl}${path}`, headers }, context.load));
  }
  return figures;
}

async function post(
  context: InboxesContext,
  path: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${context.serviceUrl}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

import { FOLD_COUNTERS } from '../../src/conversations/conversation.repository';
import type { Client } from 'pg';
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

/** A service the section starts on one of its copies, and the bench admin's token on it. */
export interface InboxesService {
  serviceUrl: string;
  token: string;
  stop(): Promise<void>;
}

export interface InboxesContext {
  /** A copy of the seeded database, left as seeded (but compacted): today's. */
  todayDatabaseUrl: string;
  /** Another copy, spread over the inboxes. */
  spreadDatabaseUrl: string;
  /** A service of its own on a database (`name` keeps its Redis keys apart). */
  startService(databaseUrl: string, name: string): Promise<InboxesService>;
  size: SeedSize;
  load: Load;
}

/** Rounds of the three measurements of each case: what drifts over the run (the machine, caches) weighs on each alike. */
const ROUNDS = 3;

/**
 * Several numbers at scale, on two copies of the seeded database made before any service opened
 * it, identical row for row, each served by a service of its own started for this section. Today
 * is the first copy as seeded (one inbox, as every install before inboxes), measured as the admin.
 * The second is spread over 20 inboxes with 200 agents each a member of 3: one of those agents sees
 * 3/20 of the conversations through the membership condition, and the admin all 20 inboxes. The
 * three are measured one after another, case by case, in rounds (each round in another order:
 * both copies share PostgreSQL's caches), and compared by their means over the rounds. Runs 1–12
 * in docs/benchmarks.md measured today before and after moving the conversations under one
 * service instead: minutes apart, and today's own two figures differed by up to 35 %.
 */
export async function benchInboxes(context: InboxesContext): Promise<Row[]> {
  const todayService = await context.startService(context.todayDatabaseUrl, 'today');
  const spreadService = await context.startService(context.spreadDatabaseUrl, 'spread');
  try {
    await withClient(context.todayDatabaseUrl, compact);
    const spreadAdmin = { authorization: `Bearer ${spreadService.token}` };
    const created: string[] = [];
    for (let n = 1; n < INBOXES; n++) {
      const answer = await post(spreadService.serviceUrl, '/api/v1/inboxes', spreadAdmin, {
        name: `Bench inbox ${n}`,
        phone_number_id: String(900_000_000_000_000 + n),
        access_token: 'bench-no-channel',
      });
      created.push(answer.id as string);
    }
    const agent = await post(spreadService.serviceUrl, '/api/v1/users', spreadAdmin, {
      email: 'bench-inbox-agent@example.com',
      name: 'Bench Inbox Agent',
      role: 'agent',
      password: BENCH_AGENT_PASSWORD,
      inbox_ids: created.slice(0, INBOXES_PER_AGENT),
    });
    const spread = await withClient(context.spreadDatabaseUrl, async (client) => {
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
      await compact(client);
      await client.query('VACUUM (ANALYZE) inbox_members');
      return moved;
    });
    console.log(
      `\n${describeSize(context.size)} of the second copy spread over ${INBOXES} inboxes in ${(spread / 1000).toFixed(1)} s; ${AGENTS} agents, each a member of ${INBOXES_PER_AGENT}`,
    );
    const login = await post(spreadService.serviceUrl, '/api/v1/auth/login', {}, { email: agent.email, password: BENCH_AGENT_PASSWORD });
    const subjects = [
      { who: 'today (one inbox, admin)', serviceUrl: todayService.serviceUrl, headers: { authorization: `Bearer ${todayService.token}` } },
      {
        who: `agent of ${INBOXES_PER_AGENT} of ${INBOXES} inboxes`,
        serviceUrl: spreadService.serviceUrl,
        headers: { authorization: `Bearer ${login.token as string}` },
      },
      { who: `admin, ${INBOXES} inboxes`, serviceUrl: spreadService.serviceUrl, headers: spreadAdmin },
    ];
    // figures[case][subject][round]
    const figures: Figures[][][] = CASES.map(() => subjects.map(() => []));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, { name, path }] of CASES.entries()) {
        for (let k = 0; k < subjects.length; k++) {
          const j = (k + round) % subjects.length;
          const { who, serviceUrl, headers } = subjects[j];
          await warnIfMachineBusy(`before ${name} (${who}, round ${round + 1})`);
          console.log(`round ${round + 1}: measuring ${path} as ${who} ...`);
          figures[i][j].push(await measure({ url: `${serviceUrl}${path}`, headers }, context.load));
        }
      }
    }

    const rows: Row[] = [];
    for (const [i, { name }] of CASES.entries()) {
      const [today, asAgent, asAdmin] = figures[i].map(meanOf);
      rows.push(
        { name: `${name}: today`, figures: today },
        { name: `${name}: agent of ${INBOXES_PER_AGENT}/${INBOXES}`, figures: asAgent },
        { name: `${name}: admin of ${INBOXES}`, figures: asAdmin },
      );
    }
    printTable(`Inboxes (${describeSize(context.size)}, ${context.load.connections} connections, mean of ${ROUNDS} rounds)`, rows);
    for (const [i, { name }] of CASES.entries()) {
      const rounds = figures[i][1]
        .map((agentRound, round) => `${((agentRound.rps / figures[i][0][round].rps) * 100).toFixed(0)}%`)
        .join(', ');
      const [today, asAgent] = figures[i].map(meanOf);
      printRatio(`${name}: agent of ${INBOXES_PER_AGENT} inboxes / today (req/s; rounds ${rounds})`, asAgent, today, GOAL_PERCENT);
    }
    return rows;
  } finally {
    await spreadService.stop();
    await todayService.stop();
  }
}

/** The rounds' mean: rates, latencies and counts alike. */
function meanOf(rounds: Figures[]): Figures {
  const mean = (pick: (figures: Figures) => number) => rounds.reduce((sum, figures) => sum + pick(figures), 0) / rounds.length;
  return {
    rps: mean((f) => f.rps),
    p50: mean((f) => f.p50),
    p99: mean((f) => f.p99),
    non2xx: mean((f) => f.non2xx),
    errors: mean((f) => f.errors),
    ok: mean((f) => f.ok),
    seconds: mean((f) => f.seconds),
  };
}

/**
 * The tables the seed and the move wrote, written again compactly with their indexes (VACUUM
 * FULL keeps the rows' order), on both copies alike. A move updates every message and
 * conversation, which leaves the tables and their indexes about twice their size; a plain VACUUM
 * frees the dead rows but not the indexes' pages, and each request then read 7–10 % more (runs 1–10
 * in docs/benchmarks.md). An install whose conversations arrived in their inboxes never goes through
 * such a move: the comparison is of the inboxes, not of the move.
 */
async function compact(client: Client): Promise<void> {
  const started = performance.now();
  await client.query('VACUUM (FULL, ANALYZE) messages, conversations, conversation_counters');
  // The rewrite's gigabyte of WAL flushed now, not by a checkpoint while a case is measured (a
  // superuser's or pg_checkpoint's right: without it, the run goes on and says so).
  await client
    .query('CHECKPOINT')
    .catch((error: unknown) =>
      console.log(
        `warning: CHECKPOINT refused (${error instanceof Error ? error.message : String(error)}): a checkpoint may run while measuring`,
      ),
    );
  console.log(
    `messages, conversations and the counts' ledger compacted (VACUUM FULL, then CHECKPOINT) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

async function post(
  serviceUrl: string,
  path: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${serviceUrl}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

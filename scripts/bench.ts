/**
 * Throughput of the service against bare Fastify on the same machine: `npm run bench`.
 *
 * Each section measures one service endpoint under load and the same answer served by a bare
 * Fastify server, so the ratio shows what the service's own layers cost (Nest, guards, token
 * check, user lookup, logging), independent of how fast the machine is. The ratio is the figure
 * to watch; absolute numbers only compare runs on one machine.
 *
 * Sections:
 *   GET /api/v1/me and GET /api/health against bare Fastify (always; on the embedded PGlite by default)
 *   webhook fan-out: events to 10 loopback receivers, at once (deliveries per second), then 100 a
 *     second for BENCH_DURATION seconds (event-to-receiver latency at 1,000 deliveries a second)
 *   GET /api/v1/conversations?limit=50 against bare Fastify + raw pg running the same SQL, on a
 *     seeded database (PostgreSQL only)
 *   GET /api/v1/messages/search for four kinds of query against bare Fastify + raw pg running the
 *     same SQL, on the seeded database (PostgreSQL only)
 *   POST /api/webhooks/messaging: signed inbound messages per second, and a check that every
 *     acknowledged one was stored (PostgreSQL, and the embedded engine without BENCH_DATABASE_URL)
 *   the agent console in Chromium on the seeded database: navigation to the first row of the
 *     inbox against its API calls made from Node, and the frames while scrolling 10,000 loaded
 *     conversations against the first page only (PostgreSQL only; skipped without /usr/bin/chromium)
 *   rules: customer messages with no rule, then with 50 rules on message.received (49 passed over, 1
 *     acting): the webhook's rate in both cases, the events run through the rules per second, and the
 *     mean run of one event (all 50 rules) from the service's own histogram (on PostgreSQL at both
 *     sizes, with the cost growth)
 *   campaigns: a campaign to BENCH_CAMPAIGN_RECIPIENTS contacts at BENCH_CAMPAIGN_RATE into a fake
 *     Graph API on loopback: the time to its first send, the rate received against the rate asked
 *     for, the busiest second, duplicates, the service's memory along the run (goal: flat), the cost
 *     of reading its totals while it sends; then the same to a tenth of them (the cost growth)
 *   inboxes: the list, the open list, the counts and a message search as today (every conversation
 *     in one inbox) and, spread over 20 inboxes with 200 agents each in 3, for one such agent
 *     (goal: at least 90 % of today's requests per second) and for the admin: on two copies of the
 *     seeded database (`<name>_inboxes_today`, `<name>_inboxes_spread`, made before a service opens
 *     the seed, dropped after), each served by a service of its own; the three measured in turn,
 *     in 3 rounds (PostgreSQL only)
 * On PostgreSQL the data sections run twice: at the full size and at a tenth of it (10,000
 * conversations, 100,000 messages, in a database beside BENCH_DATABASE_URL that the bench creates
 * and drops), and a table shows what 10x more data costs each of them.
 *
 * Options: `--only <section>[,<section>…]` runs only those sections: me, fanout, rules, campaigns, list, search,
 * ingest, console, inboxes (e.g. `npm run bench -- --only me` for the framework floor alone). `--quick`: a short
 * run to see that everything works, not to compare (3 s per case, 1 s warm-up, 1,000 fan-out
 * events), unless BENCH_DURATION or BENCH_WEBHOOK_EVENTS say otherwise.
 *
 * At the end the service's peak resident memory (VmHWM, Linux) is printed.
 *
 * Settings (environment, read only here):
 *   BENCH_DURATION      seconds of each measured run (default 10), after a 3 s warm-up
 *   BENCH_CONNECTIONS   concurrent connections (default 50)
 *   BENCH_DATABASE_URL  PostgreSQL for the service (default: embedded PGlite in a temporary directory,
 *                       and the two PostgreSQL sections are skipped). It must name a THROWAWAY database
 *                       created for the bench (`CREATE DATABASE ti_bench`, `DROP DATABASE ti_bench` when
 *                       done): the first run migrates it, lets the service create the bench admin, and
 *                       seeds 100,000 contacts and conversations and 1,000,000 messages (about 400 MB,
 *                       under a minute); later runs reuse that seed, and each run adds the messages it
 *                       ingests. A database holding anything else is refused before anything is written.
 *                       The tenth-size database beside it (`<name>_tenth`) is made the same way and
 *                       dropped at the end: the URL's user needs the right to create databases.
 *   BENCH_REDIS_URL     Redis for the service (default: none, in-process)
 *   BENCH_WEBHOOK_EVENTS events of the webhook fan-out section (default 10000), each to 10 receivers
 *   BENCH_RULE_MESSAGES  customer messages of the rules section (default 2000)
 *   BENCH_CAMPAIGN_RECIPIENTS  recipients of the campaigns section (default 100000)
 *   BENCH_CAMPAIGN_RATE  its rate_per_second (default 1000, the most a campaign takes)
 *   BENCH_LOG_LEVEL     the service's LOG_LEVEL (default info, as in production)
 *   BENCH_KEEP_TMP=1    keep the temporary directory (service log, database) after the run
 *
 * A missed goal is reported, not failed: this is a measurement, not a test. Exit status 1 means
 * the bench itself could not run.
 */
import { availableParallelism } from 'node:os';
import { startBareServer } from './bench/bare';
import { Cleanup, describe } from './bench/cleanup';
import { copyOfDatabase, countStoredWamids, countStoredWamidsEmbedded, dropDatabase, siblingDatabase } from './bench/database';
import { benchCampaigns } from './bench/campaigns';
import { benchConsole } from './bench/console';
import { benchWebhookFanOut } from './bench/fanout';
import { benchIngest, INGEST_CUSTOMERS } from './bench/ingest';
import { benchInboxes } from './bench/inboxes';
import { benchConversationList } from './bench/list';
import { startFakeGraph } from './bench/graph';
import { warnIfMachineBusy } from './bench/machine';
import { Load, measure } from './bench/measure';
import { printGrowth, printPeakMemory, printRatio, printTable, type Row } from './bench/report';
import { benchRules, type RulesContext, type RulesFigures } from './bench/rules';
import { benchMessageSearch } from './bench/search';
import { inspectDatabase, seedDatabase } from './bench/seed';
import { benchReports } from './bench/reports';
import { benchRouting, type RoutingFigures } from './bench/routing';
import { soak } from './bench/soak';
import { describeSize, FULL_SIZE, type SeedSize, TENTH_SIZE } from './bench/seed-sql';
import { BENCH_METRICS_TOKEN, type RunningService, ServiceOptions, startService } from './bench/service';

const GOAL_PERCENT = 60;
/** Ingest goals, messages stored per second: PostgreSQL + Redis (issue 28's 1,500), and the embedded default. */
const INGEST_GOAL_POSTGRES = 1_500;
const INGEST_GOAL_EMBEDDED = 500;
const WARMUP_SECONDS = 3;
const ADMIN_EMAIL = 'bench-admin@example.com';
const ADMIN_PASSWORD = 'bench-password-0123456789';
/** The service's MESSAGING_APP_SECRET; the ingest section signs its bodies with it. */
const MESSAGING_APP_SECRET = 'bench-messaging-app-secret';
/** The service's DATABASE_POOL_MAX (its default) and the list reference's pool size alike. */
const POOL_MAX = 10;

interface Settings {
  load: Load;
  databaseUrl: string | null;
  redisUrl: string | null;
  webhookEvents: number;
  ruleMessages: number;
  campaignRecipients: number;
  campaignRate: number;
  soakSeconds: number;
  logLevel: string;
  keepFiles: boolean;
}

function readSettings(env: NodeJS.ProcessEnv, quick: boolean): Settings {
  return {
    load: {
      durationSeconds: positiveInteger(env, 'BENCH_DURATION', quick ? 3 : 10),
      connections: positiveInteger(env, 'BENCH_CONNECTIONS', 50),
      warmupSeconds: quick ? 1 : WARMUP_SECONDS,
    },
    databaseUrl: env.BENCH_DATABASE_URL?.trim() || null,
    redisUrl: env.BENCH_REDIS_URL?.trim() || null,
    webhookEvents: positiveInteger(env, 'BENCH_WEBHOOK_EVENTS', quick ? 1_000 : 10_000),
    ruleMessages: positiveInteger(env, 'BENCH_RULE_MESSAGES', quick ? 300 : 2_000),
    campaignRecipients: positiveInteger(env, 'BENCH_CAMPAIGN_RECIPIENTS', quick ? 2_000 : 100_000),
    campaignRate: positiveInteger(env, 'BENCH_CAMPAIGN_RATE', 1_000),
    soakSeconds: positiveInteger(env, 'BENCH_SOAK_SECONDS', quick ? 60 : 600),
    logLevel: env.BENCH_LOG_LEVEL?.trim() || 'info',
    keepFiles: env.BENCH_KEEP_TMP === '1',
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name]?.trim();
  if (!value) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`${name}: expected a positive integer, got "${value}"`);
  return Number(value);
}

const SECTIONS = ['me', 'fanout', 'rules', 'campaigns', 'list', 'search', 'reports', 'ingest', 'console', 'inboxes', 'routing'] as const;
type Section = (typeof SECTIONS)[number];
/** The sections whose cost depends on how much data there is: run at both sizes on PostgreSQL. */
const DATA_SECTIONS: Section[] = ['rules', 'list', 'search', 'reports', 'ingest', 'console', 'inboxes', 'routing'];

/** The sections `--only` names, or all of them. */
function sectionsToRun(argv: string[]): Set<Section> {
  const at = argv.indexOf('--only');
  if (at === -1) return new Set(SECTIONS);
  const names = (argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(`--only: expected sections among ${SECTIONS.join(', ')}, got "${argv[at + 1] ?? ''}"`);
  return new Set(names as Section[]);
}

async function main(cleanup: Cleanup): Promise<void> {
  const settings = readSettings(process.env, process.argv.includes('--quick'));
  const sections = sectionsToRun(process.argv.slice(2));
  const { load } = settings;
  const graph = await startFakeGraph(cleanup);
  const serviceOptions: ServiceOptions = {
    ...settings,
    channelBaseUrl: graph.baseUrl,
    adminEmail: ADMIN_EMAIL,
    adminPassword: ADMIN_PASSWORD,
    messagingAppSecret: MESSAGING_APP_SECRET,
    poolMax: POOL_MAX,
  };

  if (settings.databaseUrl) await prepareDatabase(settings.databaseUrl, FULL_SIZE, serviceOptions, cleanup);
  const soaking = process.argv.includes('--soak');
  const fullCopies =
    settings.databaseUrl && sections.has('inboxes') && !soaking ? await copiesForInboxes(settings.databaseUrl, cleanup) : null;

  const service = await startService(serviceOptions, cleanup);
  // Registered after the service's stop, so it runs before it: the peak of the whole run.
  cleanup.defer('peak memory', () => {
    const peak = service.peakResidentMegabytes();
    if (peak !== null) printPeakMemory('\nservice peak resident memory over the run (VmHWM)', peak, settings.databaseUrl !== null);
  });
  console.log(
    `service: pid ${service.pid} at ${service.baseUrl}, ${settings.databaseUrl ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'embedded PGlite'}, ` +
      `Redis ${settings.redisUrl ? 'on' : 'off'}, LOG_LEVEL=${settings.logLevel}`,
  );
  console.log(`service log: ${service.logFile}${settings.keepFiles ? '' : ' (deleted at the end; BENCH_KEEP_TMP=1 keeps it)'}`);
  console.log(
    `load: ${load.connections} connections, ${load.warmupSeconds} s warm-up + ${load.durationSeconds} s per case; ` +
      `node ${process.version}, ${availableParallelism()} CPUs shared by the load generator and the servers`,
  );

  const token = await logIn(service.baseUrl);
  const auth = { authorization: `Bearer ${token}` };

  if (soaking) {
    await soak({
      serviceUrl: service.baseUrl,
      token,
      appSecret: MESSAGING_APP_SECRET,
      pid: service.pid,
      seconds: settings.soakSeconds,
      onPostgres: settings.databaseUrl !== null,
    });
    return;
  }

  // The baseline answers exactly what the service answers, so both send the same body bytes.
  const meBody = await getJson(`${service.baseUrl}/api/v1/me`, auth);
  const bare = await startBareServer([{ path: '/me', body: meBody }], cleanup);
  const bareBody = await getJson(`${bare.baseUrl}/me`, {});
  if (JSON.stringify(bareBody) !== JSON.stringify(meBody)) throw new Error('the bare server does not answer the same body as the service');

  if (sections.has('me')) {
    await warnIfMachineBusy('before the first measurement');
    // One case at a time: both servers share the CPUs with the load generator. The service's own
    // health endpoint (same framework, headers and logging, no token, no rate limit, no lookup)
    // splits the gap: bare -> health is what the framework costs, health -> me what auth costs.
    console.log('\nmeasuring GET /api/v1/me (service) ...');
    const serviceMe = await measure({ url: `${service.baseUrl}/api/v1/me`, headers: auth }, load);
    console.log('measuring GET /api/health (service, no auth or rate limit) ...');
    const serviceHealth = await measure({ url: `${service.baseUrl}/api/health` }, load);
    console.log('measuring the same JSON as /api/v1/me (bare Fastify) ...');
    const bareMe = await measure({ url: `${bare.baseUrl}/me` }, load);

    printTable('GET /api/v1/me (auth guard, per-user rate limit, user lookup)', [
      { name: 'service /api/v1/me', figures: serviceMe },
      { name: 'service /api/health', figures: serviceHealth },
      { name: 'bare Fastify', figures: bareMe },
    ]);
    printRatio('service /api/v1/me / bare (req/s)', serviceMe, bareMe, GOAL_PERCENT);
    printRatio('service /api/health / bare (req/s), the framework floor', serviceHealth, bareMe, GOAL_PERCENT);
    if (serviceMe.non2xx > 0 || serviceMe.errors > 0) {
      console.log(
        `warning: the service answered ${serviceMe.non2xx} non-2xx and ${serviceMe.errors} errors; its figures are not of successful requests only`,
      );
    }
  }

  if (sections.has('fanout'))
    await benchWebhookFanOut({
      serviceUrl: service.baseUrl,
      token,
      events: settings.webhookEvents,
      pacedSeconds: settings.load.durationSeconds,
      cleanup,
    });

  // On PostgreSQL the rules run with the data sections, at both sizes.
  // The embedded engine's ingest below stops the service: the rules come first there, from
  // customers after the ingest's, whose first messages must each open a conversation.
  if (sections.has('rules') && !settings.databaseUrl)
    await benchRules(rulesContext(service, token, settings, { first: INGEST_CUSTOMERS + 1, count: 2 * settings.ruleMessages }));

  if (sections.has('campaigns')) {
    const campaign = { graph, recipients: settings.campaignRecipients, ratePerSecond: settings.campaignRate };
    if (!settings.databaseUrl) {
      await benchCampaigns({ ...campaign, serviceUrl: service.baseUrl, token, pid: service.pid });
    } else {
      // Its contacts and conversations would change the seed the data sections read: a database of its own, dropped after.
      const own = await siblingDatabase(settings.databaseUrl, 'campaigns');
      cleanup.defer(`drop ${own.name}`, () => dropDatabase(settings.databaseUrl!, own.name));
      const campaignService = await startService({ ...serviceOptions, databaseUrl: own.url, redisPrefix: 'bench-campaigns' }, cleanup);
      await benchCampaigns({
        ...campaign,
        serviceUrl: campaignService.baseUrl,
        token: await logIn(campaignService.baseUrl),
        pid: campaignService.pid,
      });
      await campaignService.stop();
    }
  }

  if (!settings.databaseUrl) {
    if (sections.has('ingest')) {
      await benchIngest({
        serviceUrl: service.baseUrl,
        appSecret: MESSAGING_APP_SECRET,
        goalMessagesPerSecond: INGEST_GOAL_EMBEDDED,
        // PGlite serves one process: the service stops before the bench reads its files.
        countStored: async (wamids) => {
          await service.stop();
          return countStoredWamidsEmbedded(service.dataDir!, wamids);
        },
        load,
      });
    }
    console.log(
      '\nskipped: GET /api/v1/conversations, message search and reports need a seeded PostgreSQL database (set BENCH_DATABASE_URL to a throwaway one)',
    );
    return;
  }
  if (!DATA_SECTIONS.some((section) => sections.has(section))) return;

  const full = await benchData(service, token, settings.databaseUrl, FULL_SIZE, sections, settings, cleanup, {
    copies: fullCopies,
    options: serviceOptions,
  });

  // The same at a tenth of the size, in a database beside BENCH_DATABASE_URL that the bench makes
  // and drops: what 10x more data costs.
  const tenthDatabase = await siblingDatabase(settings.databaseUrl, 'tenth');
  console.log(
    `\n--- the same at a tenth of the size (database ${tenthDatabase.name}, ${tenthDatabase.created ? 'created' : 'already there'}) ---`,
  );
  const fullUrl = settings.databaseUrl;
  if (tenthDatabase.created) cleanup.defer(`drop ${tenthDatabase.name}`, () => dropDatabase(fullUrl, tenthDatabase.name));
  // Queues of its own: the full size's service still runs, and its workers would take the tenth's
  // jobs (a rule's run, a delivery) and find nothing in their database, leaving each to its lease's end.
  const tenthOptions = { ...serviceOptions, databaseUrl: tenthDatabase.url, redisPrefix: 'bench-tenth:' };
  await prepareDatabase(tenthDatabase.url, TENTH_SIZE, tenthOptions, cleanup);
  if (!tenthDatabase.created) cleanup.defer(`drop ${tenthDatabase.name}`, () => dropDatabase(fullUrl, tenthDatabase.name));
  const tenthCopies = sections.has('inboxes') ? await copiesForInboxes(tenthDatabase.url, cleanup) : null;
  const tenthService = await startService(tenthOptions, cleanup);
  const tenth = await benchData(
    tenthService,
    await logIn(tenthService.baseUrl),
    tenthDatabase.url,
    TENTH_SIZE,
    sections,
    settings,
    cleanup,
    { copies: tenthCopies, options: tenthOptions },
  );
  await tenthService.stop();
  if (full.rows.length > 0) printGrowth(tenth.rows, full.rows);
  if (tenth.rules && full.rules)
    console.log(
      `rules: ${tenth.rules.eventsPerSecond.toFixed(0)} events/s through 50 rules at a tenth, ${full.rules.eventsPerSecond.toFixed(0)} at the full size ` +
        `(cost growth ${(tenth.rules.eventsPerSecond / full.rules.eventsPerSecond).toFixed(2)}x); one event's run ${tenth.rules.meanRunMs.toFixed(1)} ms and ${full.rules.meanRunMs.toFixed(1)} ms`,
    );
  if (tenth.routing && full.routing)
    console.log(
      `routing: ${tenth.routing.perSecond.toFixed(0)} assignments/s at a tenth, ${full.routing.perSecond.toFixed(0)} at the full size ` +
        `(cost growth ${(tenth.routing.perSecond / full.routing.perSecond).toFixed(2)}x)`,
    );
}

/**
 * The sections whose cost depends on the data (list, search, ingest) on one seeded PostgreSQL
 * database; answers the service's figures for the cost-growth table.
 */
async function benchData(
  service: RunningService,
  token: string,
  databaseUrl: string,
  size: SeedSize,
  sections: Set<Section>,
  settings: Settings,
  cleanup: Cleanup,
  inboxes: { copies: InboxesCopies | null; options: ServiceOptions },
): Promise<{ rows: Row[]; rules?: RulesFigures; routing?: RoutingFigures }> {
  const auth = { authorization: `Bearer ${token}` };
  const adminId = ((await getJson(`${service.baseUrl}/api/v1/me`, auth)) as { id?: unknown }).id;
  if (typeof adminId !== 'string') throw new Error('GET /api/v1/me answered no id');
  const { load } = settings;
  const rows: Row[] = [];
  if (sections.has('list'))
    rows.push(
      ...(await benchConversationList({ serviceUrl: service.baseUrl, auth, adminId, databaseUrl, size, poolMax: POOL_MAX, load, cleanup })),
    );
  if (sections.has('search'))
    rows.push(...(await benchMessageSearch({ serviceUrl: service.baseUrl, auth, databaseUrl, size, poolMax: POOL_MAX, load, cleanup })));
  if (sections.has('reports')) rows.push(...(await benchReports({ serviceUrl: service.baseUrl, token, pid: service.pid, size })));
  // Before ingest, which adds conversations: the console sees the seeded size.
  if (sections.has('console')) await benchConsole({ serviceUrl: service.baseUrl, token, size, cleanup });
  if (sections.has('ingest')) {
    const figures = await benchIngest({
      serviceUrl: service.baseUrl,
      appSecret: MESSAGING_APP_SECRET,
      goalMessagesPerSecond: INGEST_GOAL_POSTGRES,
      countStored: (wamids) => countStoredWamids(databaseUrl, wamids),
      load,
    });
    rows.push({ name: 'ingest', figures });
  }
  // After the sections that read the seed as seeded, as the ingest is: its messages land in the
  // seed's conversations (reopening the closed ones), which a run adds no conversation to.
  const rules = sections.has('rules')
    ? await benchRules(rulesContext(service, token, settings, { first: 1, count: size.contacts }))
    : undefined;
  // On copies of the seed made before any service opened it: what the sections above wrote is not in them.
  const copies = inboxes.copies;
  if (sections.has('inboxes') && copies !== null) {
    await benchInboxes({
      todayDatabaseUrl: copies.today.url,
      spreadDatabaseUrl: copies.spread.url,
      startService: async (databaseUrl, name) => {
        const started = await startService(
          { ...inboxes.options, databaseUrl, redisPrefix: `bench-inboxes-${name}-${size.name}:` },
          cleanup,
        );
        return { serviceUrl: started.baseUrl, token: await logIn(started.baseUrl), stop: () => started.stop() };
      },
      size,
      load,
    });
    await copies.drop();
  }
  // After the others: it hands the seed's queue out (and takes it back) under the service's feet.
  const routing = sections.has('routing')
    ? await benchRouting({ serviceUrl: service.baseUrl, token, databaseUrl, pid: service.pid, size })
    : undefined;
  return { rows, rules, routing };
}

/** The rules section's context on a running service, its messages from `customers` (RulesContext.customers). */
function rulesContext(service: RunningService, token: string, settings: Settings, customers: RulesContext['customers']): RulesContext {
  return {
    serviceUrl: service.baseUrl,
    token,
    appSecret: MESSAGING_APP_SECRET,
    metricsToken: BENCH_METRICS_TOKEN,
    messages: settings.ruleMessages,
    customers,
  };
}

/**
 * Leaves BENCH_DATABASE_URL migrated and seeded, before the measured service starts (so it starts
 * on the data as a long-running instance would find it, statistics included). The migrations
 * are the service's own: a first start runs them (and creates the bench admin), then it stops.
 */
async function prepareDatabase(databaseUrl: string, size: SeedSize, serviceOptions: ServiceOptions, cleanup: Cleanup): Promise<void> {
  let state = await inspectDatabase(databaseUrl, ADMIN_EMAIL, size);
  if (state.kind === 'new') {
    console.log('bench database: new; starting the service once to run its migrations and create the bench admin ...');
    const first = await startService(serviceOptions, cleanup);
    await getJson(`${first.baseUrl}/api/health/db`, {});
    await first.stop();
    state = await inspectDatabase(databaseUrl, ADMIN_EMAIL, size);
  }
  switch (state.kind) {
    case 'seeded':
      console.log(
        `bench database: already seeded, reused (${state.contacts} contacts, ${state.conversations} conversations, ${state.messages} messages)`,
      );
      return;
    case 'empty': {
      console.log(`bench database: seeding the ${size.name} size, ${describeSize(size)} (one transaction) ...`);
      const times = await seedDatabase(databaseUrl, size, (line) => console.log(line));
      console.log(`bench database: seeded in ${times.insertSeconds.toFixed(1)} s, VACUUM (ANALYZE) ${times.vacuumSeconds.toFixed(1)} s`);
      return;
    }
    case 'foreign':
      throw new Error(
        `BENCH_DATABASE_URL does not name a throwaway bench database: ${state.reason}. Create an empty one for the bench (CREATE DATABASE ti_bench) and drop it afterwards`,
      );
    case 'new':
      throw new Error('the service started and stopped, but the bench database still has no tables or no admin');
  }
}

/** The two copies of a seeded database that the inboxes section measures: one stays as seeded, one is spread over the inboxes. */
interface InboxesCopies {
  today: { url: string; name: string };
  spread: { url: string; name: string };
  drop(): Promise<void>;
}

/**
 * The seeded database copied twice for the inboxes section, before a service opens the seed (a
 * copy needs its source unused); dropped after the section, or at the end if the run stops before.
 */
async function copiesForInboxes(databaseUrl: string, cleanup: Cleanup): Promise<InboxesCopies> {
  const started = performance.now();
  const today = await copyOfDatabase(databaseUrl, 'inboxes_today');
  const spread = await copyOfDatabase(databaseUrl, 'inboxes_spread');
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await dropDatabase(databaseUrl, today.name);
    await dropDatabase(databaseUrl, spread.name);
  };
  cleanup.defer(`drop ${today.name} and ${spread.name}`, drop);
  console.log(
    `bench database: copied to ${today.name} and ${spread.name} for the inboxes section in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { today, spread, drop };
}

async function logIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  if (!response.ok) {
    throw new Error(
      `login as ${ADMIN_EMAIL} failed with ${response.status}: ${await response.text()}` +
        ' (with BENCH_DATABASE_URL, use a new, empty database: the service creates this admin on its first start there)',
    );
  }
  const { token } = (await response.json()) as { token?: unknown };
  if (typeof token !== 'string') throw new Error('login answered no token');
  return token;
}

async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

const cleanup = new Cleanup();
cleanup.onSignals();
main(cleanup)
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${describe(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanup.run());

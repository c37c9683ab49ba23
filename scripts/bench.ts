/**
 * Throughput of the service against bare Fastify on the same machine: `npm run bench`.
 *
 * Each section measures one service endpoint under load and the same answer served by a bare
 * Fastify server, so the ratio shows what the service's own layers cost (Nest, guards, token
 * check, user lookup, logging), independent of how fast the machine is. The ratio is the figure
 * to watch; absolute numbers only compare runs on one machine.
 *
 * Settings (environment, read only here):
 *   BENCH_DURATION      seconds of each measured run (default 10), after a 3 s warm-up
 *   BENCH_CONNECTIONS   concurrent connections (default 50)
 *   BENCH_DATABASE_URL  PostgreSQL for the service (default: embedded PGlite in a temporary directory);
 *                       it must be a throwaway, empty database: the bench logs in as the admin the
 *                       service creates on a database without users
 *   BENCH_REDIS_URL     Redis for the service (default: none, in-process)
 *   BENCH_LOG_LEVEL     the service's LOG_LEVEL (default info, as in production)
 *   BENCH_KEEP_TMP=1    keep the temporary directory (service log, database) after the run
 *
 * A missed goal is reported, not failed: this is a measurement, not a test. Exit status 1 means
 * the bench itself could not run.
 */
import { availableParallelism } from 'node:os';
import { startBareServer } from './bench/bare';
import { Cleanup, describe } from './bench/cleanup';
import { Load, measure } from './bench/measure';
import { printRatio, printTable } from './bench/report';
import { startService } from './bench/service';

const GOAL_PERCENT = 60;
const WARMUP_SECONDS = 3;
const ADMIN_EMAIL = 'bench-admin@example.com';
const ADMIN_PASSWORD = 'bench-password-0123456789';

interface Settings {
  load: Load;
  databaseUrl: string | null;
  redisUrl: string | null;
  logLevel: string;
  keepFiles: boolean;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  return {
    load: {
      durationSeconds: positiveInteger(env, 'BENCH_DURATION', 10),
      connections: positiveInteger(env, 'BENCH_CONNECTIONS', 50),
      warmupSeconds: WARMUP_SECONDS,
    },
    databaseUrl: env.BENCH_DATABASE_URL?.trim() || null,
    redisUrl: env.BENCH_REDIS_URL?.trim() || null,
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

async function main(cleanup: Cleanup): Promise<void> {
  const settings = readSettings(process.env);
  const { load } = settings;

  const service = await startService({ ...settings, adminEmail: ADMIN_EMAIL, adminPassword: ADMIN_PASSWORD }, cleanup);
  console.log(`service: pid ${service.pid} at ${service.baseUrl}, ${settings.databaseUrl ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'embedded PGlite'}, ` +
    `Redis ${settings.redisUrl ? 'on' : 'off'}, LOG_LEVEL=${settings.logLevel}`);
  console.log(`service log: ${service.logFile}${settings.keepFiles ? '' : ' (deleted at the end; BENCH_KEEP_TMP=1 keeps it)'}`);
  console.log(`load: ${load.connections} connections, ${load.warmupSeconds} s warm-up + ${load.durationSeconds} s per case; ` +
    `node ${process.version}, ${availableParallelism()} CPUs shared by the load generator and the servers`);

  const token = await logIn(service.baseUrl);
  const auth = { authorization: `Bearer ${token}` };

  // The baseline answers exactly what the service answers, so both send the same body bytes.
  const meBody = await getJson(`${service.baseUrl}/api/v1/me`, auth);
  const bare = await startBareServer([{ path: '/me', body: meBody }], cleanup);
  const bareBody = await getJson(`${bare.baseUrl}/me`, {});
  if (JSON.stringify(bareBody) !== JSON.stringify(meBody)) throw new Error('the bare server does not answer the same body as the service');

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
    console.log(`warning: the service answered ${serviceMe.non2xx} non-2xx and ${serviceMe.errors} errors; its figures are not of successful requests only`);
  }
}

async function logIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  if (!response.ok) {
    throw new Error(`login as ${ADMIN_EMAIL} failed with ${response.status}: ${await response.text()}` +
      ' (with BENCH_DATABASE_URL, the database must be empty so the service creates this admin)');
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

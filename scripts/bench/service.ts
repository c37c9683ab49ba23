import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Cleanup } from './cleanup';
import { BENCH_ACCESS_TOKEN, BENCH_PHONE_NUMBER_ID } from './graph';
import { exited, freePort, sleep, stopChild, tail } from './process';

/** The bearer token of the service's GET /metrics during a bench. */
export const BENCH_METRICS_TOKEN = 'bench-metrics-token-0123456789';

/**
 * The Node flags the Dockerfile runs the service with (its NODE_OPTIONS), so the bench measures
 * the memory and throughput of the service as deployed. Without the heap cap V8 lets garbage
 * grow to about 350 MB of RSS under load before collecting (docs/performance.md, "Memory").
 */
const PRODUCTION_NODE_FLAGS = ['--max-old-space-size=256'];
const PROJECT_ROOT = resolve(__dirname, '..', '..', '..');
const SERVICE_ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'main.js');

/** A first start on an empty PGlite directory runs initdb (7-8 s on 2 cores); leave ample room. */
const START_TIMEOUT_MS = 120_000;

export interface ServiceOptions {
  /** PostgreSQL URL; unset runs the embedded PGlite database in a fresh temporary directory. */
  databaseUrl: string | null;
  redisUrl: string | null;
  logLevel: string;
  adminEmail: string;
  adminPassword: string;
  /** Signs inbound channel webhooks: the ingest section sends signed bodies, as the channel does. */
  messagingAppSecret: string;
  /** DATABASE_POOL_MAX, set explicitly so the raw-pg reference can use the very same pool size. */
  poolMax: number;
  /** Keep the temporary directory (logs, database) for inspection instead of deleting it. */
  keepFiles: boolean;
  /** The fake Graph API the default inbox sends through (the campaigns section counts what arrives). */
  channelBaseUrl: string;
  /** REDIS_PREFIX: two services on two databases must not share one Redis's queues. */
  redisPrefix?: string;
}

export interface RunningService {
  baseUrl: string;
  /** Where the service's stdout (its JSON log lines) goes. */
  logFile: string;
  tempDir: string;
  /** The embedded engine's DATA_DIR, or null on PostgreSQL. */
  dataDir: string | null;
  pid: number;
  /** Its peak resident memory so far in MB (Linux's VmHWM), or as it was when stopped; null where /proc does not say. */
  peakResidentMegabytes(): number | null;
  /** Stops it before the end of the run (cleanup stops it otherwise); safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts the built service (`node dist/src/main.js`) as a child on a free loopback port, as it
 * runs in production: its own process (so the load generator does not share its event loop) and
 * logging at the configured level into a file (so the cost of logging is part of the figures).
 * Resolves once GET /api/health answers 200; the child and its directory are undone by `cleanup`.
 */
export async function startService(options: ServiceOptions, cleanup: Cleanup): Promise<RunningService> {
  const tempDir = mkdtempSync(join(tmpdir(), 'team-inbox-bench-'));
  cleanup.defer(`remove ${tempDir}`, () => {
    if (options.keepFiles) console.log(`kept ${tempDir}`);
    else rmSync(tempDir, { recursive: true, force: true });
  });

  const port = await freePort();
  const dataDir = join(tempDir, 'data');
  const logFile = join(tempDir, 'service.log');
  const errorFile = join(tempDir, 'service.stderr.log');
  const stdout = openSync(logFile, 'a');
  const stderr = openSync(errorFile, 'a');

  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...PRODUCTION_NODE_FLAGS, SERVICE_ENTRY], {
      cwd: PROJECT_ROOT,
      env: serviceEnv(options, port, dataDir),
      stdio: ['ignore', stdout, stderr],
    });
  } finally {
    // The child holds its own copies of the descriptors.
    closeSync(stdout);
    closeSync(stderr);
  }
  cleanup.defer(`stop the service (pid ${child.pid ?? '?'})`, () => stopChild(child));

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(baseUrl, child);
  } catch (error) {
    const logs = [tail(errorFile), tail(logFile)].filter(Boolean).join('\n');
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}${logs ? `\n--- service output (last lines) ---\n${logs}` : ''}`,
    );
  }
  const pid = child.pid ?? -1;
  let peakWhenStopped: number | null = null;
  const peak = () => (child.exitCode === null && child.signalCode === null ? readResident(pid, 'VmHWM') : peakWhenStopped);
  return {
    baseUrl,
    logFile,
    tempDir,
    dataDir: options.databaseUrl ? null : dataDir,
    pid,
    peakResidentMegabytes: peak,
    stop: async () => {
      peakWhenStopped ??= peak();
      await stopChild(child);
    },
  };
}

/** A process's resident set size in MB, now (VmRSS) or its peak (VmHWM), from Linux's /proc; null where it does not say. */
export function readResident(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Only what the bench means to set, plus what Node itself needs: inheriting the caller's shell
 * would let a developer's DATABASE_URL (their own database) or REDIS_URL leak into the run, and a
 * stray BETA_ACCESS_ONLY or RATE_LIMIT_* setting silently change what is measured.
 */
function serviceEnv(options: ServiceOptions, port: number, dataDir: string): NodeJS.ProcessEnv {
  const inherited = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_OPTIONS'];
  const env: NodeJS.ProcessEnv = {};
  for (const name of inherited) if (process.env[name] !== undefined) env[name] = process.env[name];
  Object.assign(env, {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: options.logLevel,
    // 40 characters: above the 32 production requires, so the service runs as configured, not
    // with the generated-secret fallback (and its start-up warning).
    SESSION_SECRET: 'bench-session-secret-0123456789abcdefghi',
    ADMIN_EMAIL: options.adminEmail,
    ADMIN_PASSWORD: options.adminPassword,
    // The limiter still counts every request (its cost is part of what is measured) but never
    // refuses one: a 429 is far cheaper than a real answer and would flatter the figures.
    RATE_LIMIT_MAX_REQUESTS: '1000000000',
    MESSAGING_APP_SECRET: options.messagingAppSecret,
    // The fan-out section's receivers listen on loopback, which registration refuses otherwise.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    DATABASE_POOL_MAX: String(options.poolMax),
    // The rules section reads the service's own timing of each rule run.
    METRICS_TOKEN: BENCH_METRICS_TOKEN,
    MESSAGING_ACCESS_TOKEN: BENCH_ACCESS_TOKEN,
    MESSAGING_PHONE_NUMBER_ID: BENCH_PHONE_NUMBER_ID,
    MESSAGING_API_BASE_URL: options.channelBaseUrl,
  });
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else env.DATA_DIR = dataDir;
  if (options.redisUrl) env.REDIS_URL = options.redisUrl;
  if (options.redisPrefix) env.REDIS_PREFIX = options.redisPrefix;
  return env;
}

async function waitForHealth(baseUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let childExited = false;
  void exited(child).then(() => (childExited = true));
  while (Date.now() < deadline) {
    if (childExited) throw new Error(`the service exited during start-up (code ${child.exitCode ?? child.signalCode})`);
    try {
      const response = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`the service did not answer GET /api/health within ${START_TIMEOUT_MS / 1000} s`);
}

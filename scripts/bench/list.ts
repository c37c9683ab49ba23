import { join } from 'node:path';
import { parsePublicId } from '../../src/common/ids';
import { startChildServer } from './child-server';
import type { Cleanup } from './cleanup';
import type { ListReferenceRequest } from './list-reference-server';
import { warnIfMachineBusy } from './machine';
import { type Load, measure } from './measure';
import { printGoal, printRatio, printTable } from './report';

const LIMIT = 50;
const GOAL_PERCENT = 50;
const GOAL_P99_MS = 100;

export interface ListContext {
  serviceUrl: string;
  auth: Record<string, string>;
  /** The admin's public id (`user_…`), from GET /api/v1/me. */
  adminId: string;
  databaseUrl: string;
  poolMax: number;
  load: Load;
  cleanup: Cleanup;
}

/**
 * GET /api/v1/conversations?limit=50 on the seeded database, against the reference: the same
 * SQL and JSON from bare Fastify and raw pg (list-reference-server.ts). The ratio is what the
 * service's layers cost on a real list endpoint, where the stack notes measured TypeORM hydration
 * and serialisation as the bottleneck.
 */
export async function benchConversationList(context: ListContext): Promise<void> {
  const callerId = parsePublicId('user', context.adminId);
  if (!callerId) throw new Error(`GET /api/v1/me answered an id that is not a user id: ${context.adminId}`);
  const request: ListReferenceRequest = {
    databaseUrl: context.databaseUrl,
    poolMax: context.poolMax,
    callerId,
    limit: LIMIT,
    path: '/conversations',
  };
  const reference = await startChildServer(join(__dirname, 'list-reference-server.js'), 'the list reference', request, context.cleanup);

  const serviceTarget = { url: `${context.serviceUrl}/api/v1/conversations?limit=${LIMIT}`, headers: context.auth };
  const referenceTarget = { url: `${reference.baseUrl}/conversations` };
  // Both must send the same bytes, or the comparison measures different work. The database does
  // not change between the two reads (the ingest section runs after this one).
  const [serviceBody, referenceBody] = [await getText(serviceTarget.url, serviceTarget.headers), await getText(referenceTarget.url, {})];
  if (serviceBody !== referenceBody) {
    throw new Error(
      `the list reference does not answer the service's body:\nservice:   ${serviceBody.slice(0, 300)}\nreference: ${referenceBody.slice(0, 300)}`,
    );
  }
  const rows = (JSON.parse(serviceBody) as { data: unknown[] }).data.length;
  console.log(
    `\nlist: both answer the same ${serviceBody.length}-byte page (${rows} conversations); reference pool ${context.poolMax} connections, as the service's`,
  );

  await warnIfMachineBusy('before this section');
  console.log(`measuring GET /api/v1/conversations?limit=${LIMIT} (service) ...`);
  const service = await measure(serviceTarget, context.load);
  console.log('measuring the same query and JSON (bare Fastify + raw pg) ...');
  const bare = await measure(referenceTarget, context.load);

  printTable(`GET /api/v1/conversations?limit=${LIMIT} (100,000 conversations)`, [
    { name: 'service', figures: service },
    { name: 'bare Fastify + pg', figures: bare },
  ]);
  printRatio('service / reference (req/s)', service, bare, GOAL_PERCENT);
  printGoal('service p99', service.p99, 'ms', { below: GOAL_P99_MS });
  if (service.non2xx > 0 || service.errors > 0) {
    console.log(
      `warning: the service answered ${service.non2xx} non-2xx and ${service.errors} errors; its figures are not of successful requests only`,
    );
  }
}

async function getText(url: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

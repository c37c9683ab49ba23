import { join } from 'node:path';
import { startChildServer } from './child-server';
import type { Cleanup } from './cleanup';
import { warnIfMachineBusy } from './machine';
import { type Load, measure } from './measure';
import { printGoal, printTable, type Row } from './report';
import type { SearchReferenceRequest } from './search-reference-server';
import { describeSize, type SeedSize } from './seed-sql';

const LIMIT = 25;
const GOAL_P99_MS = 50;
/**
 * Searches are typed by agents, a few at a time, not fired by 50 clients at once: at 50
 * connections on two cores any query costing a few milliseconds queues for hundreds, which
 * measures the queue, not the search. Five concurrent searches is a busy team.
 */
const SEARCH_CONNECTIONS = 5;
/**
 * Searches of the kinds an agent types, on the seeded 1,000,000 messages: a word in a tenth of
 * them, two words in any order, a word and a word part with another case and accent, and a
 * number that a handful of messages hold (the seed writes an order number into a quarter of
 * the customers' messages).
 */
const QUERIES = ['refund', 'number tracking', 'DÁMAGED pack', 'order 131676'];

export interface SearchContext {
  serviceUrl: string;
  auth: Record<string, string>;
  databaseUrl: string;
  size: SeedSize;
  poolMax: number;
  load: Load;
  cleanup: Cleanup;
}

/** GET /api/v1/messages/search for each query, against the same SQL and JSON from bare Fastify and raw pg; answers the service's figures. */
export async function benchMessageSearch(context: SearchContext): Promise<Row[]> {
  const request: SearchReferenceRequest = { databaseUrl: context.databaseUrl, poolMax: context.poolMax, limit: LIMIT };
  const reference = await startChildServer(join(__dirname, 'search-reference-server.js'), 'the search reference', request, context.cleanup);
  const load: Load = { ...context.load, connections: SEARCH_CONNECTIONS };
  const rows: Row[] = [];
  const serviceRows: Row[] = [];
  for (const q of QUERIES) {
    const query = `q=${encodeURIComponent(q)}`;
    const serviceUrl = `${context.serviceUrl}/api/v1/messages/search?${query}&limit=${LIMIT}`;
    const referenceUrl = `${reference.baseUrl}/search?${query}`;
    const [serviceBody, referenceBody] = [await getText(serviceUrl, context.auth), await getText(referenceUrl, {})];
    if (serviceBody !== referenceBody) throw new Error(`the search reference does not answer the service's body for q=${q}`);
    const found = (JSON.parse(serviceBody) as { data: unknown[] }).data.length;
    await warnIfMachineBusy(`before searching "${q}"`);
    console.log(`measuring GET /api/v1/messages/search?q=${q} (${found} on the first page) ...`);
    const service = await measure({ url: serviceUrl, headers: context.auth }, load);
    const bare = await measure({ url: referenceUrl }, load);
    rows.push({ name: `service q="${q}"`, figures: service }, { name: `bare Fastify + pg q="${q}"`, figures: bare });
    serviceRows.push({ name: `search "${q}"`, figures: service });
  }
  printTable(`GET /api/v1/messages/search?limit=${LIMIT} (${describeSize(context.size)}, ${SEARCH_CONNECTIONS} connections)`, rows);
  printGoal('service p99, worst query', Math.max(...serviceRows.map((row) => row.figures.p99)), 'ms', { below: GOAL_P99_MS });
  return serviceRows;
}

async function getText(url: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

/**
 * Child entry of the message search's reference: bare Fastify and a raw `pg` pool running the
 * service's own search statement (`MessageRepository.searchStatement`, its words folded once, its
 * way asked of the planner once, its plan kept on each connection when it walks, as the service
 * does: MessageRepository.searchPlan) and shaping rows with the service's own `MessageResponse.of`,
 * so the gap to the service is only what the service adds.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { mapPage, PageQuery } from '../../src/common/pagination';
import { searchWords } from '../../src/common/search';
import { MessageResponse } from '../../src/conversations/message.dto';
import type { FoundMessage } from '../../src/conversations/message.entity';
import { type ExplainedPlan, MessageRepository, type SearchWay, searchWayOf } from '../../src/conversations/message.repository';
import { Keyset, mayKeepPlan } from '../../src/database/keyset';
import { keptPlanName, sql } from '../../src/database/sql';
import { listeningPort, serveOnRequest } from './child-server';

export type SearchReferenceRequest = { databaseUrl: string; poolMax: number; limit: number };

const NEWEST_FIRST = new Keyset<FoundMessage>({ time: 'created_at', id: 'id' }, 'DESC', (row) => [row.created_at, row.id]);

serveOnRequest('search reference', async ({ databaseUrl, poolMax, limit }: SearchReferenceRequest) => {
  const pool = new Pool({ connectionString: databaseUrl, max: poolMax });
  const messages = new MessageRepository();
  const app = Fastify();
  app.addHook('onClose', () => pool.end());
  // The words folded by the database and the planner's way, once per query and kept, as the service keeps them.
  const searches = new Map<string, { folded: string[]; way: SearchWay }>();
  const searchOf = async (words: string[], page: PageQuery): Promise<{ folded: string[]; way: SearchWay }> => {
    const key = JSON.stringify([words, page.limit]);
    if (!searches.has(key)) {
      const fold = messages.foldStatement(words).compile();
      const folded = (await pool.query<{ folded: string }>(fold.text, fold.values)).rows.map((row) => row.folded);
      const explain = async (way: SearchWay) => {
        const { text, values } = sql`EXPLAIN (FORMAT JSON) ${messages.searchStatement(folded, page, {}, way)}`.compile();
        return (await pool.query<ExplainedPlan>(text, values)).rows;
      };
      const way = mayKeepPlan(page) ? searchWayOf(await explain('index'), await explain('walk')) : 'index';
      searches.set(key, { folded, way });
    }
    return searches.get(key)!;
  };
  app.get<{ Querystring: { q: string } }>('/search', async (request) => {
    const page = Object.assign(new PageQuery(), { limit });
    const { folded, way } = await searchOf(searchWords(request.query.q), page);
    const { text, values } = messages.searchStatement(folded, page, {}, way).compile();
    const { rows } = await pool.query<FoundMessage>(way === 'walk' ? { name: keptPlanName(text), text, values } : { text, values });
    return mapPage(NEWEST_FIRST.page(rows, page), (message) => MessageResponse.of(message, message.customer_phone));
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: listeningPort(app.server) };
});

/**
 * Child entry of the conversation list's reference: bare Fastify and a raw `pg` pool running the
 * service's own list statement (`ConversationRepository.listStatement`) and shaping rows with the
 * service's own functions (`pageOf`, `mapPage`, `ConversationResponse.of`). So it answers the same bytes from the same SQL
 * on a pool of the same size, each statement prepared once per connection where the service keeps its plan, and the gap to the service is only what the service adds: Nest,
 * guards, token check, user lookup, rate limit, logging, TypeORM's query path. `/computed` answers
 * the same page with its rows computed as the service did before issue 28, the "today" the issue's
 * 4x is measured against.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { mapPage } from '../../src/common/pagination';
import { ConversationResponse, type ListConversationsQuery } from '../../src/conversations/conversation.dto';
import type { ConversationWithCustomer } from '../../src/conversations/conversation.entity';
import { type ConversationCounts, ConversationRepository, type ShowRows } from '../../src/conversations/conversation.repository';
import { conversationFilterOf } from '../../src/conversations/conversations.service';
import { keptPlanName } from '../../src/database/sql';
import { listeningPort, serveOnRequest } from './child-server';
import { computedRow } from './computed-row';

export type ListReferenceRequest = {
  databaseUrl: string;
  poolMax: number;
  /** The caller's stored uuid, as the service passes it (the reader of unread counts, `assigned_to=me`). */
  callerId: string;
  limit: number;
  path: string;
};

serveOnRequest('list reference', async ({ databaseUrl, poolMax, callerId, limit, path }: ListReferenceRequest) => {
  const pool = new Pool({ connectionString: databaseUrl, max: poolMax });
  const conversations = new ConversationRepository();
  const app = Fastify();
  app.addHook('onClose', () => pool.end());
  // The list's filters as the bench sends them (`status`, `assigned_to=me`, `unread=true`).
  const list = (show?: ShowRows) => async (request: { query: Record<string, string> }) => {
    // Built per request, as the service builds it from the validated query.
    const { status, assigned_to, unread } = request.query;
    const query = { limit, status, assigned_to, unread: unread === 'true' || undefined } as ListConversationsQuery;
    const filter = conversationFilterOf(query, { id: callerId, role: 'admin', inbox_ids: [] });
    const { text, values } = conversations.listStatement(filter, query, callerId, show).compile();
    // A named statement where the service keeps the plan (of its own rows, not the computed ones).
    const keepPlan = show === undefined && conversations.keepsListPlan(filter, query);
    const { rows } = await pool.query<ConversationWithCustomer>(keepPlan ? { name: keptPlanName(text), text, values } : { text, values });
    return mapPage(conversations.pageOf(rows, query), ConversationResponse.of);
  };
  app.get<{ Querystring: Record<string, string> }>(path, list());
  // The same page with its rows computed as before issue 28 (computed-row.ts).
  app.get<{ Querystring: Record<string, string> }>(`${path}/computed`, list(computedRow));
  app.get(`${path}/counts`, async () => {
    const { text, values } = conversations.countsStatement(callerId).compile();
    return (await pool.query<ConversationCounts>({ name: keptPlanName(text), text, values })).rows[0];
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: listeningPort(app.server) };
});

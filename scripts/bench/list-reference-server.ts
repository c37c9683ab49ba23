/**
 * Child entry of the conversation list's reference: bare Fastify and a raw `pg` pool running the
 * service's own list statement (`ConversationRepository.listStatement`, whose rows are JSON written
 * by the database) and joining them with the service's own functions (`pageOf`, `pageJson`). So it answers the same bytes from the same SQL
 * on a pool of the same size, and the gap to the service is only what the service adds: Nest,
 * guards, token check, user lookup, rate limit, logging, TypeORM's query path. `/computed` answers
 * the same page with its rows computed as the service did before issue 28, the "today" the issue's
 * 4x is measured against.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { mapPage, pageJson } from '../../src/common/pagination';
import { ConversationResponse, type ListConversationsQuery } from '../../src/conversations/conversation.dto';
import type { ConversationWithCustomer } from '../../src/conversations/conversation.entity';
import {
  type ConversationAnswerRow,
  type ConversationCounts,
  type ConversationKeys,
  ConversationRepository,
  type ShowRows,
} from '../../src/conversations/conversation.repository';
import { conversationFilterOf } from '../../src/conversations/conversations.service';
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
  // The list's filters as the bench sends them (`status`, `assigned_to=me`, `unread=true`), built per
  // request as the service builds them from the validated query.
  const queryOf = ({ status, assigned_to, unread }: Record<string, string>) =>
    ({ limit, status, assigned_to, unread: unread === 'true' || undefined }) as ListConversationsQuery;
  const rowsOf = async <Row>(query: ListConversationsQuery, show?: ShowRows) => {
    const { text, values } = conversations.listStatement(conversationFilterOf(query, callerId), query, callerId, show).compile();
    return (await pool.query<Row & ConversationKeys>(text, values)).rows;
  };
  // The service's page: its rows written as JSON by the database, joined without parsing them.
  app.get<{ Querystring: Record<string, string> }>(path, async (request, reply) => {
    const query = queryOf(request.query);
    const page = conversations.pageOf(await rowsOf<ConversationAnswerRow>(query), query);
    return reply.type('application/json; charset=utf-8').send(pageJson(mapPage(page, (row) => row.answer)));
  });
  // The same page with its rows computed as before issue 28 (computed-row.ts), shaped in Node as it was then.
  app.get<{ Querystring: Record<string, string> }>(`${path}/computed`, async (request) => {
    const query = queryOf(request.query);
    return mapPage(conversations.pageOf(await rowsOf<ConversationWithCustomer>(query, computedRow), query), ConversationResponse.of);
  });
  app.get(`${path}/counts`, async () => {
    const { text, values } = conversations.countsStatement(callerId).compile();
    return (await pool.query<ConversationCounts>(text, values)).rows[0];
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: listeningPort(app.server) };
});

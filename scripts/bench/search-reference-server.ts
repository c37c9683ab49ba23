/**
 * Child entry of the message search's reference: bare Fastify and a raw `pg` pool running the
 * service's own search statement (`MessageRepository.searchStatement`, its words folded once) and
 * shaping rows with the service's own `MessageResponse.of`, so the gap to the service is only what
 * the service adds.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { mapPage, PageQuery } from '../../src/common/pagination';
import { containsPattern, searchWords } from '../../src/common/search';
import { MessageResponse } from '../../src/conversations/message.dto';
import type { FoundMessage } from '../../src/conversations/message.entity';
import { MessageRepository } from '../../src/conversations/message.repository';
import { Keyset } from '../../src/database/keyset';
import { listeningPort, serveOnRequest } from './child-server';

export type SearchReferenceRequest = { databaseUrl: string; poolMax: number; limit: number };

const NEWEST_FIRST = new Keyset<FoundMessage>({ time: 'created_at', id: 'id' }, 'DESC', (row) => [row.created_at, row.id]);

serveOnRequest('search reference', async ({ databaseUrl, poolMax, limit }: SearchReferenceRequest) => {
  const pool = new Pool({ connectionString: databaseUrl, max: poolMax });
  const messages = new MessageRepository();
  const app = Fastify();
  app.addHook('onClose', () => pool.end());
  // The words folded by the database once per query and kept, as the service keeps them (MessageRepository.searchPatterns).
  const patternsOf = new Map<string, string[]>();
  const foldedPatterns = async (words: string[]): Promise<string[]> => {
    const key = words.join(' ');
    if (!patternsOf.has(key)) {
      const { text, values } = messages.foldStatement(words).compile();
      const { rows } = await pool.query<{ folded: string }>(text, values);
      patternsOf.set(
        key,
        rows.map((row) => containsPattern(row.folded)),
      );
    }
    return patternsOf.get(key)!;
  };
  app.get<{ Querystring: { q: string } }>('/search', async (request) => {
    const page = Object.assign(new PageQuery(), { limit });
    const { text, values } = messages.searchStatement(await foldedPatterns(searchWords(request.query.q)), page).compile();
    const { rows } = await pool.query<FoundMessage>(text, values);
    return mapPage(NEWEST_FIRST.page(rows, page), (message) => MessageResponse.of(message, message.customer_phone));
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: listeningPort(app.server) };
});

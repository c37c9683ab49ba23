import { Injectable } from '@nestjs/common';
import { type Page, PageQuery } from '../common/pagination';
import { ExpiringCache } from '../common/expiring-cache';
import { containsPattern } from '../common/search';
import { Keyset, mayKeepPlan } from '../database/keyset';
import { Db, execute, query, queryOne, Sql, sql } from '../database/sql';
import type { WorkKind } from '../recorded-work/work-kind';
import type { FoundMessage, MessagePricing, MessageRow, MessageStatus } from './message.entity';

const COLUMNS = sql.raw(
  'id, conversation_id, direction, type, text, content, status, error, channel_message_id, sent_by, automated, idempotency_key, request_hash, channel_timestamp, media_id, attempts, next_attempt_at, reply_to_id, referral, pricing_category, pricing_type, pricing_model, campaign_id, created_at, updated_at',
);
/**
 * Queued messages as recorded work (alias `w`): a message whose sending is not finished, and what
 * its send needs, taken with its claim.
 */
export const SEND_WORK = {
  table: 'messages',
  waiting: sql`w.status = 'queued'`,
  needs: {
    from: sql`conversations c, contacts ct`,
    where: sql`c.id = w.conversation_id AND ct.id = c.contact_id`,
    columns: sql`w.type, w.text, w.content, w.media_id, w.created_at, w.campaign_id, w.sending_since, ct.phone AS customer_phone, ct.wa_user_id AS customer_wa_user_id, c.inbox_id,
                 (SELECT q.channel_message_id FROM messages q WHERE q.id = w.reply_to_id) AS reply_to_channel_message_id`,
  },
} satisfies Pick<WorkKind, 'table' | 'waiting' | 'needs'>;
/** Which inboxes' messages a search finds: of those the reader sees (null or left out: every inbox), of one among them. */
export interface MessageInboxes {
  visibleInboxes?: readonly string[] | null;
  inboxId?: string;
}
/** The inboxes a search walks one by one: the one asked for (if the reader sees it), the reader's; null: every inbox, in one walk. */
function inboxesSearched({ visibleInboxes = null, inboxId }: MessageInboxes): string[] | null {
  if (inboxId !== undefined) return visibleInboxes === null || visibleInboxes.includes(inboxId) ? [inboxId] : [];
  return visibleInboxes === null ? null : [...visibleInboxes];
}
/** The most words whose folding is kept (the latest folded); a search's q is at most 200 characters. */
export const FOLDED_WORDS_KEPT = 10_000;
/** The most searches (words and inboxes) whose way is kept (MessageRepository.searchPlan). */
const SEARCH_WAYS_KEPT = 10_000;
/** How long a word's folding and a search's way are kept. */
const SEARCH_KEPT_MS = 60 * 60 * 1000;
/** The indexes that walk messages newest first: everyone's, and each inbox's. */
const WALKS = new Set(['messages_created_idx', 'messages_inbox_created_idx']);
/** How a search tests its words (MessageRepository.searchStatement). */
export type SearchWay = 'index' | 'walk';
/** A search's statement, and whether each connection keeps its plan (RunOptions.keepPlan). */
export interface SearchPlan {
  statement: Sql;
  keepPlan: boolean;
}
/** EXPLAIN (FORMAT JSON)'s one row. */
export type ExplainedPlan = { 'QUERY PLAN': unknown };
type PlanNode = { 'Node Type'?: string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[]; Plan?: PlanNode };
/** Every node of an explained plan. */
function planNodes(explained: ExplainedPlan[]): PlanNode[] {
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode) => {
    nodes.push(node);
    if (node.Plan) visit(node.Plan);
    node.Plans?.forEach(visit);
  };
  explained.forEach((row) => (row['QUERY PLAN'] as PlanNode[]).forEach(visit));
  return nodes;
}
/**
 * `walk` when the search's two statements, explained with its words, show that a kept plan is
 * right for it: the `index` one reads no trigram index (the words are common enough that the
 * planner walks), and the `walk` one, whose estimates are the kept plan's, reads messages only by
 * walking them newest first (with many words its estimate of the matches can fall so low that it
 * would rather read an inbox whole and sort it).
 */
export function searchWayOf(viaIndex: ExplainedPlan[], viaWalk: ExplainedPlan[]): SearchWay {
  if (planNodes(viaIndex).some((node) => node['Index Name'] === 'messages_text_search_idx')) return 'index';
  const walked = planNodes(viaWalk).filter((node) => node['Relation Name'] === 'messages');
  const walks = walked.length > 0 && walked.every((scan) => scan['Node Type'] === 'Index Scan' && WALKS.has(scan['Index Name'] ?? ''));
  return walks ? 'walk' : 'index';
}
const NEWEST_FIRST = new Keyset<MessageRow>({ time: 'created_at', id: 'id' }, 'DESC', (row) => [row.created_at, row.id]);

/** The SQL of the `messages` table. */
@Injectable()
export class MessageRepository {
  /** `foldWords`' words as `search_fold()` folded them, by word. */
  private readonly foldedWords = new ExpiringCache<string>(FOLDED_WORDS_KEPT);
  /** `searchPlan`'s ways, by inboxes searched and words. */
  private readonly searchWays = new ExpiringCache<SearchWay>(SEARCH_WAYS_KEPT);

  /** The thread, newest first, on messages_conversation_created_idx. */
  async list(db: Db, conversationId: string, page: PageQuery): Promise<Page<MessageRow>> {
    const where = [sql`conversation_id = ${conversationId}`];
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    return NEWEST_FIRST.page(
      await query<MessageRow>(db, sql`SELECT ${COLUMNS} FROM messages ${sql.where(where)} ${NEWEST_FIRST.orderAndLimit(page)}`),
      page,
    );
  }

  /**
   * The search statement, in one place for the service, the EXPLAIN tests and the bench: messages
   * of every thread whose folded text (`search_text`) contains every folded word (`foldWords`),
   * newest first. A reader kept to some inboxes (or a search of one) walks each of them on
   * messages_inbox_created_idx, merged in order (Keyset.mergedPage): about as many rows as one
   * walk of everything (messages_created_idx) would read, however little of the traffic their
   * inboxes have. The customer's phone is joined for the page's rows only.
   *
   * `way` (SearchWay) says how the words are tested: `index`, a LIKE that messages_text_search_idx
   * (trigrams) serves, the planner choosing between it and the walks by how common the words are;
   * `walk`, strpos, the same test that no index serves, so that the walks are the only plan.
   */
  searchStatement(folded: string[], page: PageQuery, inboxes: MessageInboxes = {}, way: SearchWay = 'index'): Sql {
    const where = folded.map((word) =>
      way === 'index' ? sql`search_text LIKE ${containsPattern(word)}` : sql`strpos(search_text, ${word}) > 0`,
    );
    const after = NEWEST_FIRST.after(page.cursor);
    if (after) where.push(after);
    // The walk way's inbox is a subquery's value, which the planner does not see either: a plan
    // made with one inbox's row count costs less than the kept one for a busy inbox, and PostgreSQL
    // keeps the plan made without the values only if it costs no more than those made with them.
    const inboxCondition = (inboxId: string) => (way === 'index' ? sql`inbox_id = ${inboxId}` : sql`inbox_id = (SELECT ${inboxId}::uuid)`);
    const walk = (inbox: Sql[]) => sql`SELECT ${COLUMNS} FROM messages ${sql.where([...inbox, ...where])}`;
    const searched = inboxesSearched(inboxes);
    const found =
      searched === null
        ? sql`${walk([])} ${NEWEST_FIRST.orderAndLimit(page)}`
        : NEWEST_FIRST.mergedPage(
            searched.length === 0 ? [walk([sql`false`])] : searched.map((inboxId) => walk([inboxCondition(inboxId)])),
            'm',
            page,
          );
    return sql`WITH found AS (${found})
      SELECT found.*, ct.phone AS customer_phone FROM found
        JOIN conversations c ON c.id = found.conversation_id JOIN contacts ct ON ct.id = c.contact_id
      ORDER BY found.created_at DESC, found.id DESC`;
  }

  /**
   * How a search runs. Planning the search cost more than running it: three walks (an agent of
   * three inboxes) 0.52 ms to plan, each of their words estimated on messages_text_search_idx,
   * and more than the parse and the run (pgbench, 100,000 conversations in 20 inboxes, "refund":
   * 1,138–1,327 statements/s planned each time, 2,483–3,107 with the plan kept). Yet a kept plan
   * must not serve every word: one made without the words' values walks the inboxes for a word
   * that a handful of messages hold, reading all of them (982 ms). So the planner is asked once
   * (EXPLAIN, searchWayOf) per words and inboxes, and its answer kept an hour, as the folding is:
   * when it walks, the search runs the `walk` way, whose one plan each connection keeps; else the
   * `index` way, planned with the words each time, as is every page but a first one of a kept
   * size (mayKeepPlan). PostgreSQL keeps the plan made without the values (after five runs) when
   * it costs no more than those made with them did on average: so nothing in the `walk` way's first page lets
   * the planner tell one search from another (strpos, the inboxes as subqueries' values, the
   * LIMIT written in), and each plan made with the values costs what the kept one does.
   */
  async searchPlan(db: Db, folded: string[], page: PageQuery, inboxes: MessageInboxes): Promise<SearchPlan> {
    const way = mayKeepPlan(page, inboxesSearched(inboxes)?.length) ? await this.searchWay(db, folded, page, inboxes) : 'index';
    return { statement: this.searchStatement(folded, page, inboxes, way), keepPlan: way === 'walk' };
  }

  /** `searchPlan`'s way for these words and inboxes, asked of the planner once an hour. */
  private async searchWay(db: Db, folded: string[], page: PageQuery, inboxes: MessageInboxes): Promise<SearchWay> {
    // The page's size too: a walk stops after as many matches, so the planner's answer depends on it.
    const key = JSON.stringify([inboxesSearched(inboxes), folded, page.limit]);
    const kept = this.searchWays.get(key);
    if (kept !== undefined) return kept;
    const explain = (way: SearchWay) =>
      query<ExplainedPlan>(db, sql`EXPLAIN (FORMAT JSON) ${this.searchStatement(folded, page, inboxes, way)}`);
    const way = searchWayOf(await explain('index'), await explain('walk'));
    this.searchWays.set(key, way, Date.now() + SEARCH_KEPT_MS);
    return way;
  }

  /**
   * Each search word folded by the database's `search_fold()`, as `search_text` holds text: its
   * rules (unaccent's) go further than the query's folding (ß is ss; ∖ is \). The folded words are
   * kept an hour (the function is declared immutable; the hour bounds how long a changed
   * dictionary goes unseen). Not called in the search statement itself: PostgreSQL evaluates an
   * SQL function with constant arguments while planning, through its function executor, once for
   * each walk that names it; that cost more than the walks (pgbench, 100,000 conversations in 20
   * inboxes: three walks 1,657–1,729 statements/s with the call, 2,102–2,426 with the folded word).
   */
  async foldWords(db: Db, words: string[]): Promise<string[]> {
    // Read once: what this call keeps below may push out of the cache what it found there.
    const kept = words.map((word) => this.foldedWords.get(word));
    const missing = words.filter((_, i) => kept[i] === undefined);
    const fresh = new Map<string, string>();
    if (missing.length > 0) {
      const rows = await query<{ folded: string }>(db, this.foldStatement(missing));
      const until = Date.now() + SEARCH_KEPT_MS;
      missing.forEach((word, i) => {
        fresh.set(word, rows[i].folded);
        this.foldedWords.set(word, rows[i].folded, until);
      });
    }
    return words.map((word, i) => kept[i] ?? fresh.get(word)!);
  }

  /** `search_fold()` of each word, in their order (public for the bench's reference, which folds as the service does). */
  foldStatement(words: string[]): Sql {
    return sql`SELECT search_fold(w.word) AS folded FROM unnest(${words}::text[]) WITH ORDINALITY AS w(word, n) ORDER BY w.n`;
  }

  async search(db: Db, words: string[], page: PageQuery, inboxes: MessageInboxes): Promise<Page<FoundMessage>> {
    const { statement, keepPlan } = await this.searchPlan(db, await this.foldWords(db, words), page, inboxes);
    return NEWEST_FIRST.page(await query<FoundMessage>(db, statement, { keepPlan }), page);
  }

  /**
   * Inserts a message; an inbound one the channel delivered before (same channel message id) is
   * not inserted again. Answers whether it was inserted.
   */
  async insert(db: Db, message: MessageRow): Promise<boolean> {
    const inserted = await query(
      db,
      sql`INSERT INTO messages (${COLUMNS})
          VALUES (${message.id}, ${message.conversation_id}, ${message.direction}, ${message.type}, ${message.text},
                  ${message.content === null ? null : JSON.stringify(message.content)}, ${message.status}, ${message.error}, ${message.channel_message_id},
                  ${message.sent_by}, ${message.automated}, ${message.idempotency_key}, ${message.request_hash}, ${message.channel_timestamp}, ${message.media_id}, ${message.attempts},
                  ${message.next_attempt_at}, ${message.reply_to_id}, ${message.referral === null ? null : JSON.stringify(message.referral)},
                  ${message.pricing_category}, ${message.pricing_type}, ${message.pricing_model}, ${message.campaign_id}, ${message.created_at}, ${message.updated_at})
          ON CONFLICT (channel_message_id) WHERE channel_message_id IS NOT NULL DO NOTHING RETURNING id`,
    );
    return inserted.length > 0;
  }

  /** A campaign's message is with the channel from now, for attempt `attempt` if it is still that one's and no other attempt's. */
  async markSending(db: Db, id: string, attempt: number): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`UPDATE messages SET sending_since = now()
             WHERE id = ${id} AND attempts = ${attempt} AND status = 'queued' AND sending_since IS NULL`,
      )) > 0
    );
  }

  async clearSending(db: Db, id: string): Promise<void> {
    await execute(db, sql`UPDATE messages SET sending_since = NULL WHERE id = ${id}`);
  }

  /** Moves every message of one conversation into another (two customers' conversations merged); their times, and so the thread's order, stay. */
  async moveToConversation(db: Db, fromConversationId: string, intoConversationId: string): Promise<number> {
    return execute(
      db,
      sql`UPDATE messages SET conversation_id = ${intoConversationId}, updated_at = now() WHERE conversation_id = ${fromConversationId}`,
    );
  }

  async existsWithChannelId(db: Db, channelMessageId: string): Promise<boolean> {
    return (await queryOne(db, sql`SELECT 1 FROM messages WHERE channel_message_id = ${channelMessageId}`)) !== null;
  }

  /** The message with this channel id, on messages_channel_message_id_key. */
  findByChannelId(db: Db, channelMessageId: string): Promise<MessageRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM messages WHERE channel_message_id = ${channelMessageId}`);
  }

  /** A message of this conversation; null when it is another conversation's or unknown. */
  findInConversation(db: Db, conversationId: string, id: string): Promise<MessageRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM messages WHERE id = ${id} AND conversation_id = ${conversationId}`);
  }

  /** The newest message of the conversation (of one direction when given), on messages_conversation_created_idx. */
  newest(db: Db, conversationId: string, direction?: 'inbound'): Promise<MessageRow | null> {
    return queryOne(
      db,
      sql`SELECT ${COLUMNS} FROM messages WHERE conversation_id = ${conversationId} ${direction ? sql`AND direction = ${direction}` : sql.raw('')}
          ORDER BY created_at DESC, id DESC LIMIT 1`,
    );
  }

  findByIdempotencyKey(db: Db, sentBy: string, idempotencyKey: string): Promise<MessageRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM messages WHERE sent_by = ${sentBy} AND idempotency_key = ${idempotencyKey}`);
  }

  /** Moves an outbound message to `status` if it is in one of `from`; answers the changed row. */
  moveStatus(
    db: Db,
    channelMessageId: string,
    from: MessageStatus[],
    change: { status: MessageStatus; error: string | null; pricing: MessagePricing | null; at: Date },
  ): Promise<MessageRow | null> {
    return queryOne(
      db,
      sql`UPDATE messages SET status = ${change.status}, error = ${change.error}, ${pricingSet(change.pricing)}, updated_at = ${change.at}
           WHERE channel_message_id = ${channelMessageId} AND direction = 'outbound' AND status = ANY(${from})
          RETURNING ${COLUMNS}`,
    );
  }

  /** The pricing of a status that does not move the message (it arrived late): kept all the same. */
  async setPricing(db: Db, channelMessageId: string, pricing: MessagePricing): Promise<void> {
    await execute(
      db,
      sql`UPDATE messages SET ${pricingSet(pricing)}
           WHERE channel_message_id = ${channelMessageId} AND direction = 'outbound'
             AND (pricing_category, pricing_type, pricing_model) IS DISTINCT FROM
                 (COALESCE(${pricing.category}, pricing_category), COALESCE(${pricing.type}, pricing_type), COALESCE(${pricing.model}, pricing_model))`,
    );
  }

  /** Ends a queued message's sending (sent or failed); answers the changed row, or null when it was no longer queued. */
  finishSend(
    db: Db,
    id: string,
    change: { status: MessageStatus; channel_message_id: string | null; error: string | null },
  ): Promise<MessageRow | null> {
    return queryOne(
      db,
      sql`UPDATE messages SET status = ${change.status}, channel_message_id = COALESCE(${change.channel_message_id}, channel_message_id), error = ${change.error},
                 next_attempt_at = NULL, claimed_by = NULL, updated_at = now()
           WHERE id = ${id} AND status = 'queued'
          RETURNING ${COLUMNS}`,
    );
  }

  /** The messages that carry a media (one, unless an upload was sent more than once). */
  findByMediaId(db: Db, mediaId: string): Promise<MessageRow[]> {
    return query(db, sql`SELECT ${COLUMNS} FROM messages WHERE media_id = ${mediaId}`);
  }

  async attachMedia(db: Db, id: string, mediaId: string): Promise<void> {
    await execute(db, sql`UPDATE messages SET media_id = ${mediaId} WHERE id = ${id}`);
  }
}

/** The pricing columns set from a status: each part the status said, the stored one where it said nothing. */
function pricingSet(pricing: MessagePricing | null): Sql {
  return sql`pricing_category = COALESCE(${pricing?.category ?? null}, pricing_category),
             pricing_type = COALESCE(${pricing?.type ?? null}, pricing_type),
             pricing_model = COALESCE(${pricing?.model ?? null}, pricing_model)`;
}

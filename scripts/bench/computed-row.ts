import { sql, type Sql } from '../../src/database/sql';
import { UNREAD_COUNT_LIMIT } from '../../src/conversations/conversation.entity';

/**
 * The list's rows as the service showed them before issue 28, computed for each row of the page:
 * the label names joined from `labels`, the preview probed in `messages`, the unread count counted
 * after the reader's marker. Kept here, frozen, so the bench measures today's list against that
 * shape on the same page selection, machine and run (`ConversationRepository.listStatement`'s `show`).
 */
export function computedRow(conversations: Sql, readerId: string | null): Sql {
  const unread =
    readerId === null
      ? sql``
      : sql`, CASE WHEN c.last_received_id IS NULL OR (r.last_read_at, r.last_read_message_id) >= (c.last_received_at, c.last_received_id) THEN 0
               ELSE (SELECT count(*)::int FROM (SELECT 1 FROM messages u WHERE u.conversation_id = c.id AND u.direction = 'inbound'
                                                  AND (r.last_read_at IS NULL OR (u.created_at, u.id) > (r.last_read_at, r.last_read_message_id))
                                                ORDER BY u.created_at DESC, u.id DESC LIMIT ${UNREAD_COUNT_LIMIT}) unread)
             END AS unread_count`;
  const marker = readerId === null ? sql`` : sql`LEFT JOIN conversation_reads r ON r.conversation_id = c.id AND r.user_id = ${readerId}`;
  return sql`SELECT c.id, c.inbox_id, c.status, c.assigned_to, c.team_id, c.waiting_since, c.last_message_at, c.last_inbound_at, c.snoozed_until, c.created_at, c.updated_at,
    c.csat_rating, c.csat_comment, c.csat_rated_at,
    ct.name AS customer_name, ct.phone AS customer_phone, ct.wa_user_id AS customer_wa_user_id, ct.username AS customer_username,
    ARRAY(SELECT l.name FROM conversation_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.conversation_id = c.id) AS labels,
    lm.id AS last_message_id, lm.direction AS last_message_direction, lm.type AS last_message_type, lm.text AS last_message_text,
    lm.status AS last_message_status, lm.created_at AS last_message_created_at${unread}
  FROM ${conversations} c JOIN contacts ct ON ct.id = c.contact_id ${marker}
  LEFT JOIN LATERAL (SELECT m.id, m.direction, m.type, m.text, m.status, m.created_at FROM messages m
                      WHERE m.conversation_id = c.id AND m.direction <> 'internal' ORDER BY m.created_at DESC, m.id DESC LIMIT 1) lm ON true`;
}

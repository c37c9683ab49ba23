/**
 * The bench data set, as set-based SQL: each table is one `INSERT … SELECT … generate_series`, so
 * PostgreSQL builds a million rows in one statement instead of a million round trips (seconds
 * instead of many minutes). Run in this order, in one transaction, on a migrated, empty database.
 *
 * The shape aims at what the measured queries are sensitive to: table and index sizes, the
 * spread of `last_message_at` the list is ordered by, filters' selectivities (open/closed,
 * assigned or not), a skewed number of messages per conversation, and ids that, like the
 * service's (UUIDv7), follow creation time.
 */

import { FOLD_COUNTERS } from '../../src/conversations/conversation.repository';

/** How much data: the full size the goals are set at, and a tenth of it (how cost grows with data). */
export interface SeedSize {
  name: 'full' | 'tenth';
  contacts: number;
  /** One per contact, as in the service (a customer has one conversation). */
  conversations: number;
  messages: number;
}

export const FULL_SIZE: SeedSize = { name: 'full', contacts: 100_000, conversations: 100_000, messages: 1_000_000 };
export const TENTH_SIZE: SeedSize = { name: 'tenth', contacts: 10_000, conversations: 10_000, messages: 100_000 };

/** "100,000 conversations, 1,000,000 messages", for titles. */
export function describeSize(size: SeedSize): string {
  return `${size.conversations.toLocaleString('en-US')} conversations, ${size.messages.toLocaleString('en-US')} messages`;
}

export const SEED = {
  agents: 5,
  /** Seeded agents' e-mails start with this: the marker of a database this bench seeded. */
  agentEmailPrefix: 'bench-agent-',
} as const;

/** Seeded customer `n` (1-based) has the phone +1 555 then n on 7 digits: unique, and valid E.164. */
const PHONE_PREFIX = '+1555';
const PHONE_DIGITS = 7;

/** The phone of seeded customer `n`, as the CONTACTS statement writes it. */
export function seededPhone(n: number): string {
  return `${PHONE_PREFIX}${String(n).padStart(PHONE_DIGITS, '0')}`;
}

/**
 * A UUIDv7 for a given time, as the service's `newUuid`: the 48-bit millisecond timestamp over the
 * first 12 hex digits of a random v4, and the version digit set to 7 (the variant bits of the v4
 * are already right). `gen_random_uuid()` is built into PostgreSQL 13+, no extension needed.
 * A temporary function: it vanishes with the session, leaving the schema as the migrations made it.
 */
const UUID7_FUNCTION = `
  CREATE FUNCTION pg_temp.bench_uuid7(at timestamptz) RETURNS uuid LANGUAGE sql VOLATILE AS $$
    SELECT overlay(overlay(replace(gen_random_uuid()::text, '-', '')
      PLACING lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') FROM 1 FOR 12)
      PLACING '7' FROM 13 FOR 1)::uuid
  $$`;

/**
 * A few agents to assign conversations to. Their password hash is not a hash, so nobody can log
 * in as them (the service answers 401); they only exist for `assigned_to`.
 */
const AGENTS = `
  INSERT INTO users (id, email, name, role, password_hash, beta_access, created_at, updated_at)
  SELECT pg_temp.bench_uuid7(at), '${SEED.agentEmailPrefix}' || n || '@example.com',
    (ARRAY['Ana Silva', 'Ben Carter', 'Chloe Martin', 'Dev Patel', 'Emma Rossi', 'Femi Ade', 'Gus Lind', 'Hana Sato'])[1 + (n - 1) % 8],
    'agent', 'bench-seed: no login', true, at, at
  FROM generate_series(1, ${SEED.agents}) n, LATERAL (SELECT now() - interval '200 days' AS at) t`;

/**
 * Customers: 400 distinct names (as names repeat in real life), one in ten without a profile name
 * (the inbox shows the phone), a third with an e-mail, some tagged. Created 90 to 180 days ago,
 * before any conversation activity.
 */
const contacts = (size: SeedSize) => `
  INSERT INTO contacts (id, phone, name, email, tags, created_at, updated_at)
  SELECT pg_temp.bench_uuid7(created_at), '${PHONE_PREFIX}' || lpad(n::text, ${PHONE_DIGITS}, '0'),
    CASE WHEN n % 10 = 0 THEN NULL ELSE first || ' ' || last END,
    CASE WHEN n % 3 = 0 THEN lower(first || '.' || last || n || '@example.com') END,
    CASE n % 7 WHEN 0 THEN '{vip}'::text[] WHEN 1 THEN '{wholesale}' WHEN 2 THEN '{vip,returning}' ELSE '{}' END,
    created_at, created_at
  FROM (
    SELECT n,
      (ARRAY['Maria', 'John', 'Aisha', 'Wei', 'Carlos', 'Fatima', 'Liam', 'Sofia', 'Kenji', 'Olga',
             'Pedro', 'Amara', 'Noah', 'Priya', 'Lucas', 'Yara', 'Ivan', 'Mei', 'Omar', 'Elena'])[1 + n % 20] AS first,
      (ARRAY['Lopez', 'Smith', 'Khan', 'Chen', 'Garcia', 'Haddad', 'Murphy', 'Rossi', 'Tanaka', 'Ivanova',
             'Santos', 'Okafor', 'Brown', 'Sharma', 'Silva', 'Aziz', 'Petrov', 'Wang', 'Farouk', 'Novak'])[1 + (n / 20) % 20] AS last,
      now() - interval '90 days' - random() * interval '90 days' AS created_at
    FROM generate_series(1, ${size.contacts}) n
  ) s`;

/**
 * One conversation per contact: about 80% open, a third assigned (to the admin or an agent, so
 * `assigned_to=me` finds some), last activity spread over 90 days. The customer's last message is
 * the latest one in 60% of them; otherwise an agent answered up to 6 hours later.
 */
const CONVERSATIONS = `
  INSERT INTO conversations (id, contact_id, inbox_id, status, assigned_to, last_message_at, last_inbound_at, created_at, updated_at)
  SELECT pg_temp.bench_uuid7(ct.created_at), ct.id, (SELECT id FROM inboxes WHERE is_default),
    CASE WHEN random() < 0.2 THEN 'closed' ELSE 'open' END,
    CASE WHEN random() < 1.0 / 3 THEN (SELECT array_agg(id ORDER BY created_at, id) FROM users)[1 + floor(random() * (SELECT count(*) FROM users))::int] END,
    last_at,
    CASE WHEN random() < 0.6 THEN last_at ELSE last_at - random() * interval '6 hours' END,
    ct.created_at, last_at
  FROM (SELECT id, created_at, now() - random() * interval '90 days' AS last_at FROM contacts) ct`;

/** Conversations numbered 0..n-1, so each generated message can pick one by number in a join. */
const NUMBERED_CONVERSATIONS = `
  CREATE TEMP TABLE bench_conversations ON COMMIT DROP AS
  SELECT (row_number() OVER (ORDER BY id) - 1)::int AS n, id, assigned_to, last_message_at, last_inbound_at,
    greatest(created_at, last_message_at - interval '30 days') AS first_at
  FROM conversations`;

/**
 * Messages: the first one per conversation is its latest, at exactly `last_message_at` (inbound
 * when that is also `last_inbound_at`), so every conversation has a thread consistent with the
 * list. The rest go to conversations drawn with a squared uniform (a long tail: a few threads of
 * hundreds of messages, many of a handful), up to 30 days before the last one. Inbound messages
 * are `received` with a channel id, a quarter of them naming an order number (which the search
 * bench looks for); outbound ones mostly read, some failed with the channel's
 * error, sent by the conversation's assignee.
 */
const messages = (size: SeedSize) => `
  INSERT INTO messages (id, conversation_id, direction, type, text, content, status, error, channel_message_id, sent_by, channel_timestamp, created_at, updated_at)
  SELECT pg_temp.bench_uuid7(at), conversation_id, direction, 'text',
    CASE direction
      WHEN 'inbound' THEN (ARRAY['Hi, is my order shipped?', 'Thanks!', 'Can I change the delivery address?', 'The package arrived damaged',
        'When do you open tomorrow?', 'I would like a refund', 'Do you have this in size M?', 'Perfect, thank you so much',
        'Is anyone there?', 'My tracking number does not work'])[1 + i % 10]
        || CASE WHEN i % 4 = 0 THEN ' (order ' || (100000 + (i::bigint * 7919) % 900000) || ')' ELSE '' END
      ELSE (ARRAY['Hi! Let me check that for you.', 'It left our warehouse today.', 'Sure, what is the new address?',
        'Sorry to hear that, could you send a photo?', 'We open at 9:00.', 'Your refund is on its way.', 'Yes, size M is in stock.',
        'You are welcome!', 'Here is your new tracking link.', 'Anything else I can help with?'])[1 + i % 10]
    END,
    NULL,
    CASE WHEN direction = 'inbound' THEN 'received' WHEN r < 0.7 THEN 'read' WHEN r < 0.9 THEN 'delivered' WHEN r < 0.98 THEN 'sent' ELSE 'failed' END,
    CASE WHEN direction = 'outbound' AND r >= 0.98 THEN '(#131047) Re-engagement message' END,
    'wamid.bench-seed-' || i,
    CASE WHEN direction = 'outbound' THEN assigned_to END,
    CASE WHEN direction = 'inbound' THEN at - interval '1 second' END,
    at, at
  FROM (
    SELECT g.i, c.id AS conversation_id, c.assigned_to, random() AS r,
      CASE WHEN g.i < ${size.conversations} THEN c.last_message_at ELSE c.last_message_at - random() * (c.last_message_at - c.first_at) END AS at,
      CASE
        WHEN g.i < ${size.conversations} THEN (CASE WHEN c.last_inbound_at = c.last_message_at THEN 'inbound' ELSE 'outbound' END)
        WHEN random() < 0.55 THEN 'inbound'
        ELSE 'outbound'
      END AS direction
    FROM (
      SELECT i, CASE WHEN i < ${size.conversations} THEN i ELSE floor(${size.conversations} * power(random(), 2))::int END AS n
      FROM generate_series(0, ${size.messages - 1}) i
    ) g
    JOIN bench_conversations c ON c.n = g.n
  ) m`;

/** Each conversation's newest inbound message, the key read markers are compared with, as the service keeps it. */
const LAST_RECEIVED = `
  UPDATE conversations c SET (last_received_at, last_received_id) = (
    SELECT m.created_at, m.id FROM messages m WHERE m.conversation_id = c.id AND m.direction = 'inbound'
     ORDER BY m.created_at DESC, m.id DESC LIMIT 1)`;

/**
 * Read markers: every user (the bench admin included) has read 70% of the conversations up to
 * their newest message (all the customer's messages the messages' trigger counted), and nothing of the rest: unread counts, `unread=true` and the counts of
 * the tabs run against some 420,000 markers, as a busy team's database holds.
 */
const READ_MARKERS = `
  INSERT INTO conversation_reads (conversation_id, user_id, last_read_message_id, last_read_at, updated_at, inbound_read)
  SELECT c.id, u.id, m.id, m.created_at, m.created_at, c.inbound_count
  FROM conversations c CROSS JOIN users u
  CROSS JOIN LATERAL (SELECT m.id, m.created_at FROM messages m WHERE m.conversation_id = c.id ORDER BY m.created_at DESC, m.id DESC LIMIT 1) m
  WHERE random() < 0.7`;

/**
 * The reports' facts are kept by triggers as conversations and messages change; the seed writes
 * rows in no particular order, which those triggers would read as a history nobody lived. They are
 * off while it inserts (inside its transaction), and the facts are then written as a history:
 * 70% of the conversations opened once, the rest twice (resolved, then reopened 4 days later);
 * every episode but an open conversation's last one resolved; first answers within 3 hours,
 * resolutions within 30, queues up to 20 minutes; a third of the resolved rated.
 */
const FACT_TRIGGERS_OFF = `
  ALTER TABLE conversations DISABLE TRIGGER conversation_facts;
  ALTER TABLE messages DISABLE TRIGGER message_facts`;
const FACT_TRIGGERS_ON = `
  ALTER TABLE conversations ENABLE TRIGGER conversation_facts;
  ALTER TABLE messages ENABLE TRIGGER message_facts`;
const REPORT_FACTS = `
  INSERT INTO conversation_episodes (conversation_id, inbox_id, opened_at, customer_wrote_at, first_response_at, first_responder_id,
    first_response_seconds, first_response_business_seconds, resolved_at, resolution_seconds, resolution_business_seconds,
    assigned_to, team_id, waiting_seconds, csat_rating)
  SELECT conversation_id, inbox_id, opened, opened, opened + answer, agent, extract(epoch FROM answer), extract(epoch FROM answer),
    CASE WHEN resolved THEN opened + answer + work END,
    CASE WHEN resolved THEN extract(epoch FROM answer + work) END,
    CASE WHEN resolved THEN extract(epoch FROM answer + work) END,
    agent, NULL, extract(epoch FROM wait), CASE WHEN resolved AND random() < 1.0 / 3 THEN 1 + floor(random() * 5)::int END
  FROM (
    SELECT c.id AS conversation_id, c.inbox_id, k,
      c.last_message_at - (x.episodes - k) * interval '4 days' - random() * interval '1 day' AS opened,
      random() * interval '3 hours' AS answer, random() * interval '30 hours' AS work, random() * interval '20 minutes' AS wait,
      k < x.episodes OR c.status = 'closed' AS resolved,
      COALESCE(c.assigned_to, (SELECT array_agg(id ORDER BY created_at, id) FROM users)[1 + floor(random() * (SELECT count(*) FROM users))::int]) AS agent
    FROM conversations c
    CROSS JOIN LATERAL (SELECT CASE WHEN random() < 0.3 AND c.id IS NOT NULL THEN 2 ELSE 1 END AS episodes) x
    CROSS JOIN LATERAL generate_series(1, x.episodes) k
  ) e;
  INSERT INTO conversation_holds (episode_id, conversation_id, inbox_id, user_id, team_id, new_agent, new_team, started_at, ended_at)
  SELECT id, conversation_id, inbox_id, assigned_to, team_id, true, true, opened_at + make_interval(secs => waiting_seconds), resolved_at
    FROM conversation_episodes`;

/** The statements that seed `size`, with a label each for progress lines, in order. */
export function seedStatements(size: SeedSize): { label: string; sql: string }[] {
  return [
    { label: 'helper', sql: UUID7_FUNCTION },
    { label: "reports' fact triggers off", sql: FACT_TRIGGERS_OFF },
    { label: `${SEED.agents} agents`, sql: AGENTS },
    { label: `${size.contacts.toLocaleString('en-US')} contacts`, sql: contacts(size) },
    { label: `${size.conversations.toLocaleString('en-US')} conversations`, sql: CONVERSATIONS },
    { label: 'numbering', sql: NUMBERED_CONVERSATIONS },
    { label: `${size.messages.toLocaleString('en-US')} messages`, sql: messages(size) },
    { label: 'newest inbound message per conversation', sql: LAST_RECEIVED },
    { label: 'read markers', sql: READ_MARKERS },
    { label: "reports' facts", sql: REPORT_FACTS },
    { label: "reports' fact triggers on", sql: FACT_TRIGGERS_ON },
    // The triggers wrote a ledger row per change above: folded as the service folds it.
    { label: 'counts folded', sql: FOLD_COUNTERS.compile().text },
  ];
}

/** The tables the seed fills, for VACUUM (ANALYZE) afterwards. */
export const SEEDED_TABLES = [
  'users',
  'contacts',
  'conversations',
  'messages',
  'conversation_reads',
  'conversation_counters',
  'conversation_episodes',
  'conversation_holds',
];

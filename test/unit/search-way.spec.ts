import { type ExplainedPlan, searchWayOf } from '../../src/conversations/message.repository';

/** EXPLAIN (FORMAT JSON)'s answer: the top of the page's rows over `scans` of messages. */
const explained = (...scans: Record<string, string>[]): ExplainedPlan[] => [
  {
    'QUERY PLAN': [
      {
        Plan: {
          'Node Type': 'Nested Loop',
          Plans: [
            {
              'Node Type': 'Limit',
              Plans: [{ 'Node Type': 'Merge Append', Plans: scans.map((scan) => ({ 'Node Type': 'Limit', Plans: [scan] })) }],
            },
            { 'Node Type': 'Index Scan', 'Relation Name': 'conversations', 'Index Name': 'conversations_pkey' },
          ],
        },
      },
    ],
  },
];
const walkOf = (index: string) => ({ 'Node Type': 'Index Scan', 'Relation Name': 'messages', 'Index Name': index });
const inboxWalk = walkOf('messages_inbox_created_idx');
const trigrams = { 'Node Type': 'Bitmap Index Scan', 'Index Name': 'messages_text_search_idx' };
const trigramRead = { 'Node Type': 'Bitmap Heap Scan', 'Relation Name': 'messages', Plans: [trigrams] } as unknown as Record<
  string,
  string
>;

describe('searchWayOf', () => {
  it('walks when neither statement reads messages but newest first on a walking index', () => {
    expect(searchWayOf(explained(inboxWalk, inboxWalk), explained(inboxWalk, inboxWalk))).toBe('walk');
    expect(searchWayOf(explained(walkOf('messages_created_idx')), explained(walkOf('messages_created_idx')))).toBe('walk');
  });

  it('reads the trigram index when the planner reads it for one inbox of the search', () => {
    expect(searchWayOf(explained(inboxWalk, trigramRead), explained(inboxWalk, inboxWalk))).toBe('index');
  });

  it('does not keep a walk statement whose plan reads messages otherwise (read whole, then sorted)', () => {
    const wholeInbox = { 'Node Type': 'Seq Scan', 'Relation Name': 'messages' };
    const byInbox = { 'Node Type': 'Bitmap Heap Scan', 'Relation Name': 'messages' };
    expect(searchWayOf(explained(inboxWalk), explained(wholeInbox))).toBe('index');
    expect(searchWayOf(explained(inboxWalk), explained(inboxWalk, byInbox))).toBe('index');
    expect(searchWayOf(explained(inboxWalk), explained(walkOf('messages_conversation_created_idx')))).toBe('index');
  });

  it('does not keep a statement that reads no messages at all (a reader of no inbox)', () => {
    expect(searchWayOf(explained(), explained())).toBe('index');
  });
});

import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Conversation, type Schemas } from '../api/client';
import { Thread } from '../components/thread';
import { VirtualList } from '../components/virtual-list';
import { customerOf, duration, isWith, shortTime } from '../format';
import { navigate, useLocation } from '../router';
import type { StreamEvent } from '../stream';
import { TemplatePicker } from '../components/template-picker';
import { Dialog, ErrorNote, Field, useAction, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type Counts = Schemas['ConversationCountsResponse'];
type Tab = 'mine' | 'teams' | 'waiting' | 'unassigned' | 'open' | 'snoozed' | 'closed';
const TABS: { tab: Tab; label: string }[] = [
  { tab: 'mine', label: 'Mine' },
  { tab: 'teams', label: 'My teams' },
  { tab: 'waiting', label: 'Waiting' },
  { tab: 'unassigned', label: 'Unassigned' },
  { tab: 'open', label: 'All open' },
  { tab: 'snoozed', label: 'Snoozed' },
  { tab: 'closed', label: 'Closed' },
];
const ROW_HEIGHT = 76;
const PAGE = 100;

interface Filter {
  tab: Tab;
  unread: boolean;
  label: string;
  q: string;
  /** One inbox's conversations; '' for those of every inbox the user sees. */
  inboxId: string;
}

function queryOf(filter: Filter) {
  const status = filter.tab === 'snoozed' ? 'snoozed' : filter.tab === 'closed' ? 'closed' : 'open';
  const assigned_to = filter.tab === 'mine' ? 'me' : filter.tab === 'unassigned' ? 'none' : undefined;
  return {
    status,
    assigned_to,
    waiting: filter.tab === 'waiting' || undefined,
    team_id: filter.tab === 'teams' ? ('mine' as const) : undefined,
    unread: filter.unread || undefined,
    label: filter.label || undefined,
    q: filter.q || undefined,
    inbox_id: filter.inboxId || undefined,
  } as const;
}

/** Whether a conversation, as an event carries it, belongs in the list the filter shows (`myTeams`: the ids of the user's teams). */
function matches(conversation: Conversation, filter: Filter, myId: string, myTeams: ReadonlySet<string>): boolean {
  const query = queryOf(filter);
  if (conversation.status !== query.status) return false;
  if (query.waiting && conversation.waiting_since === null) return false;
  if (query.team_id && (conversation.team_id === null || !myTeams.has(conversation.team_id))) return false;
  if (query.assigned_to === 'me' && conversation.assigned_to !== myId) return false;
  if (query.assigned_to === 'none' && conversation.assigned_to !== null) return false;
  if (filter.inboxId && conversation.inbox_id !== filter.inboxId) return false;
  if (filter.label && !conversation.labels.some((label) => label.toLowerCase() === filter.label.toLowerCase())) return false;
  if (filter.q) {
    const q = filter.q.toLowerCase();
    const { name, phone, username } = conversation.customer;
    if (![name, phone, username].some((text) => text?.toLowerCase().includes(q))) return false;
  }
  return true;
}

/**
 * A 404 for the inbox the filter names: the user was taken off it (their stream ended and the
 * pages read again before the inbox list came), and the filter is about to be dropped.
 */
function leftInbox(caught: unknown, filter: Filter): boolean {
  return caught instanceof ApiError && caught.status === 404 && filter.inboxId !== '';
}

/** Whether `a` is a later message than `b` (the thread's order: created_at, then id). */
function laterMessage(a: Conversation['last_message'], b: Conversation['last_message']): boolean {
  return !!a && !!b && (a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id));
}

/** Newest activity first, as the API orders the list. */
function byActivity(a: Conversation, b: Conversation): number {
  return b.last_message_at.localeCompare(a.last_message_at) || b.id.localeCompare(a.id);
}

/** The queue's order: the longest waiting first. */
function byWaiting(a: Conversation, b: Conversation): number {
  return (a.waiting_since ?? '').localeCompare(b.waiting_since ?? '') || a.id.localeCompare(b.id);
}

const orderOf = (filter: Filter) => (filter.tab === 'waiting' ? byWaiting : byActivity);

/**
 * The list with `conversation` in its place, or without it when the filter no longer shows it
 * (unread only leaves out a read one unless it is `open` in the thread). A row the list holds in a
 * newer state (loaded after the event was recorded, or changed again before an answer came) stays.
 */
function withRow(
  list: Conversation[],
  conversation: Conversation,
  open: boolean,
  filter: Filter,
  myId: string,
  myTeams: ReadonlySet<string>,
): Conversation[] {
  if (list.some((c) => c.id === conversation.id && c.updated_at > conversation.updated_at)) return list;
  const rest = list.filter((c) => c.id !== conversation.id);
  if (!matches(conversation, filter, myId, myTeams) || (filter.unread && !conversation.unread_count && !open)) return rest;
  return [...rest, conversation].sort(orderOf(filter));
}

export function InboxPage() {
  const { me, stream, labels, inboxes, teams } = useWorkspace();
  const myTeams = useMemo(() => new Set(teams.filter((team) => team.member_ids.includes(me.id)).map((team) => team.id)), [teams, me.id]);
  const myTeamsRef = useRef(myTeams);
  myTeamsRef.current = myTeams;
  const { path } = useLocation();
  const selectedId = path.startsWith('/conversations/') ? decodeURIComponent(path.slice('/conversations/'.length)) || null : null;
  const [filter, setFilter] = useState<Filter>({ tab: 'open', unread: false, label: '', q: '', inboxId: '' });
  const [starting, setStarting] = useState(false);
  const [search, setSearch] = useState('');
  const [items, setItems] = useState<Conversation[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [counts, setCounts] = useState<Counts | null>(null);
  const [streamCounts, setStreamCounts] = useState<Counts | null>(null);
  const [messageHits, setMessageHits] = useState<Schemas['MessageResponse'][] | null>(null);
  const generation = useRef(0);
  const filterRef = useRef(filter);
  filterRef.current = filter;
  const itemsRef = useRef(items);
  itemsRef.current = items;
  const selectedRef = useRef(selectedId);
  selectedRef.current = selectedId;

  /** The events that arrive while a page that replaces the list is read, which it may have been read before. */
  const duringLoad = useRef<StreamEvent[] | null>(null);
  /** The stream's events applied to the list (set at each render, so it sees the current filter and user). */
  const applyEvent = useRef<(event: StreamEvent) => void>(() => undefined);

  const load = useCallback(async (from: string | null, replace: boolean) => {
    const mine = ++generation.current;
    duringLoad.current = replace ? [] : null;
    setLoading(true);
    setError(null);
    try {
      const page = await api.get('/api/v1/conversations', {
        query: { ...queryOf(filterRef.current), limit: PAGE, cursor: from ?? undefined },
      });
      if (mine !== generation.current) return;
      if (replace) {
        // Applied again on top of the page: the newer of its state and theirs stays (withRow).
        const arrived = duringLoad.current ?? [];
        duringLoad.current = null;
        itemsRef.current = page.data;
        setItems(page.data);
        for (const event of arrived) applyEvent.current(event);
      } else {
        setItems((previous) => [...previous, ...page.data.filter((c) => !previous.some((p) => p.id === c.id))]);
      }
      setCursor(page.next_cursor);
    } catch (caught) {
      if (mine === generation.current) {
        duringLoad.current = null;
        if (!leftInbox(caught, filterRef.current)) setError(caught);
      }
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    void load(null, true);
  }, [filter, load]);

  // An inbox the user no longer works (an admin took them off it) is no longer a filter.
  useEffect(() => {
    if (filter.inboxId && !inboxes.some((inbox) => inbox.id === filter.inboxId)) setFilter((current) => ({ ...current, inboxId: '' }));
  }, [inboxes]);

  // The stream sends the counts (of every inbox the user sees) at connect and whenever an event
  // changes them; one inbox's are asked for then.
  useEffect(() => stream.onCounts(setStreamCounts), [stream]);
  useEffect(() => {
    if (!filter.inboxId) return setCounts(streamCounts);
    let current = true;
    api.get('/api/v1/conversations/counts', { query: { inbox_id: filter.inboxId } }).then(
      (answer) => current && setCounts(answer),
      (caught: unknown) => current && !leftInbox(caught, filter) && setError(caught),
    );
    return () => {
      current = false;
    };
  }, [streamCounts, filter.inboxId]);

  /** The conversations this page saw created: their unread messages are the ones their events brought. */
  const createdHere = useRef(new Set<string>());
  /**
   * A conversation an event brings into the list (assigned to me, back in the queue, reopened) had
   * messages before it: events carry no reader's count, so the row is asked for with the caller's.
   */
  const readRow = useCallback(
    (id: string) =>
      api.get('/api/v1/conversations/{id}', { params: { id } }).then(
        (conversation) =>
          setItems((previous) => {
            const open = selectedRef.current === id;
            const row = open ? { ...conversation, unread_count: 0 } : conversation;
            return withRow(previous, row, open, filterRef.current, me.id, myTeamsRef.current);
          }),
        // Gone or out of reach meanwhile: the events that follow say so.
        () => undefined,
      ),
    [me.id],
  );

  applyEvent.current = (event: StreamEvent) => {
    // A merge moves one customer's conversations into the other's, deleting what they replace: the list is read again.
    if (event.type === 'contact.merged') return void load(null, true);
    if (event.type === 'contact.updated') {
      const { contact } = event.data;
      return setItems((previous) =>
        previous.some((c) => isWith(c, contact))
          ? previous.map((c) => (isWith(c, contact) ? { ...c, customer: customerOf(contact) } : c))
          : previous,
      );
    }
    const conversation = 'conversation' in event.data ? event.data.conversation : undefined;
    if (!event.type.startsWith('conversation.') && !event.type.startsWith('message.') && event.type !== 'note.created') return;
    if (!conversation || typeof conversation !== 'object' || !conversation.id) return;
    if (event.type === 'conversation.created') createdHere.current.add(conversation.id);
    if (
      !itemsRef.current.some((c) => c.id === conversation.id) &&
      conversation.unread_count === undefined &&
      !createdHere.current.has(conversation.id) &&
      selectedRef.current !== conversation.id &&
      matches(conversation, filterRef.current, me.id, myTeamsRef.current)
    )
      void readRow(conversation.id);
    setItems((previous) => {
      const existing = previous.find((c) => c.id === conversation.id);
      // A list loaded after the event was recorded shows a newer state already: the event is history
      // (two messages within a millisecond share updated_at: the later preview tells them apart).
      if (
        existing &&
        (existing.updated_at > conversation.updated_at ||
          (existing.updated_at === conversation.updated_at && laterMessage(existing.last_message, conversation.last_message)))
      )
        return previous;
      const open = selectedRef.current === conversation.id;
      let unread = existing?.unread_count ?? 0;
      // A list loaded after the message was stored counts it already: the event adds it once.
      const counted = existing?.last_message?.id !== undefined && existing.last_message.id === conversation.last_message?.id;
      if (event.type === 'message.received' && !open && !counted) unread += 1;
      if (open) unread = 0;
      const merged: Conversation = {
        ...existing,
        ...conversation,
        // An event recorded before the message (conversation.created) carries no preview yet.
        last_message: conversation.last_message ?? existing?.last_message ?? null,
        unread_count: conversation.unread_count ?? unread,
      };
      return withRow(previous, merged, open, filterRef.current, me.id, myTeamsRef.current);
    });
  };
  useEffect(
    () =>
      stream.on((event: StreamEvent) => {
        duringLoad.current?.push(event);
        applyEvent.current(event);
      }),
    [stream],
  );

  useEffect(
    () =>
      stream.onResync(() => {
        void load(null, true);
      }),
    [stream, load],
  );

  const selectedIndex = items.findIndex((c) => c.id === selectedId);
  const open = (conversation: Conversation | undefined) => conversation && navigate(`/conversations/${conversation.id}`);

  // j/k (or the arrows with Alt) move between conversations.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (target.closest('input, textarea, select, [contenteditable]') || event.ctrlKey || event.metaKey) return;
      if (event.key === 'j' || (event.altKey && event.key === 'ArrowDown')) open(items[Math.min(items.length - 1, selectedIndex + 1)]);
      else if (event.key === 'k' || (event.altKey && event.key === 'ArrowUp')) open(items[Math.max(0, selectedIndex - 1)]);
      else if (event.key === '/') {
        event.preventDefault();
        document.getElementById('inbox-search')?.focus();
      } else return;
      event.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [items, selectedIndex]);

  const onRead = useCallback((id: string) => {
    // The Unread only count comes with the stream's next counts frame: lowered here as well, it would
    // differ from what the stream last sent, which sends no frame when the counts come back to that.
    setItems((previous) => previous.map((c) => (c.id === id ? { ...c, unread_count: 0 } : c)));
  }, []);
  const onChanged = useCallback(
    (conversation: Conversation) => {
      // The answer to an action in the open thread: unread only keeps it while it is open.
      setItems((previous) => withRow(previous, conversation, true, filterRef.current, me.id, myTeamsRef.current));
    },
    [me.id],
  );

  const searchMessages = async () => {
    if (!search.trim()) return setMessageHits(null);
    try {
      setMessageHits((await api.get('/api/v1/messages/search', { query: { q: search.trim(), limit: 25 } })).data);
    } catch (caught) {
      setError(caught);
    }
  };

  const tabCount = (tab: Tab) => (counts && tab !== 'teams' ? counts[tab] : null);
  const inboxNames = new Map(inboxes.map((inbox) => [inbox.id, inbox.name]));
  const list = (
    <section class={selectedId ? 'inbox-list has-selection' : 'inbox-list'} aria-label="Conversations">
      <div class="inbox-bar">
        {inboxes.length > 1 && (
          <Field label="Inbox">
            <select value={filter.inboxId} onChange={(e) => setFilter({ ...filter, inboxId: valueOf(e) })}>
              <option value="">All inboxes</option>
              {inboxes.map((inbox) => (
                <option value={inbox.id}>{inbox.name}</option>
              ))}
            </select>
          </Field>
        )}
        <button type="button" class="button" onClick={() => setStarting(true)}>
          New conversation
        </button>
      </div>
      <div class="tabs" role="tablist" aria-label="Conversation lists">
        {TABS.map(({ tab, label }) => (
          <button
            type="button"
            role="tab"
            aria-selected={filter.tab === tab}
            class={filter.tab === tab ? 'tab active' : 'tab'}
            onClick={() => setFilter({ ...filter, tab })}
          >
            {label}
            {tabCount(tab) !== null && (
              <span class="count" aria-label={`${tabCount(tab)} conversations`}>
                {tabCount(tab)}
              </span>
            )}
          </button>
        ))}
      </div>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter({ ...filter, q: search.trim() });
          void searchMessages();
        }}
      >
        <Field label="Search customers and messages">
          <input id="inbox-search" type="search" value={search} placeholder="Name, phone or words" onInput={(e) => setSearch(valueOf(e))} />
        </Field>
        <div class="filter-row">
          <label class="check">
            <input type="checkbox" checked={filter.unread} onChange={(e) => setFilter({ ...filter, unread: e.currentTarget.checked })} />
            Unread only {counts && <span class="count">{counts.unread}</span>}
          </label>
          <Field label="Label">
            <select value={filter.label} onChange={(e) => setFilter({ ...filter, label: valueOf(e) })}>
              <option value="">Any</option>
              {labels.map((label) => (
                <option value={label.name}>{label.name}</option>
              ))}
            </select>
          </Field>
        </div>
      </form>
      {messageHits && (
        <div class="message-hits">
          <h2>
            Messages with “{filter.q}”{' '}
            <button type="button" class="link-button" onClick={() => setMessageHits(null)}>
              Hide
            </button>
          </h2>
          {messageHits.length === 0 && <p>No message has these words.</p>}
          <ul>
            {messageHits.map((hit) => (
              <li>
                <a href={`/conversations/${hit.conversation_id}`}>
                  <span class="hit-from">{hit.from ?? 'Us'}</span> {hit.text}
                </a>
              </li>
            ))}
          </ul>
        </div>
      )}
      <ErrorNote error={error} />
      {!loading && items.length === 0 && !error && <p class="empty">No conversation here.</p>}
      <VirtualList
        items={items}
        rowHeight={ROW_HEIGHT}
        label="Conversations"
        keyOf={(c) => c.id}
        activeIndex={selectedIndex}
        onNearEnd={() => cursor && !loading && void load(cursor, false)}
        renderRow={(c) => (
          <ConversationRow
            conversation={c}
            waiting={filter.tab === 'waiting'}
            selected={c.id === selectedId}
            inboxName={inboxes.length > 1 ? (inboxNames.get(c.inbox_id) ?? null) : null}
          />
        )}
      />
      {starting && <NewConversation inboxId={filter.inboxId} onClose={() => setStarting(false)} />}
    </section>
  );

  return (
    <div class="inbox">
      {list}
      {selectedId ? (
        <Thread
          key={selectedId}
          conversationId={selectedId}
          unreadAtOpen={items.find((c) => c.id === selectedId)?.unread_count ?? 0}
          onRead={onRead}
          onChanged={onChanged}
        />
      ) : (
        <section class="thread-empty" aria-label="Conversation">
          <p>Choose a conversation. Keys: j and k move, r replies, a assigns to you, e closes, ? lists them all.</p>
        </section>
      )}
    </div>
  );
}

/**
 * Writing first: a contact and the inbox (number) to write from, then the template that opens the
 * conversation (outside the customer's 24 hours only a template may be sent).
 */
function NewConversation(props: { inboxId: string; onClose: () => void }) {
  const { inboxes } = useWorkspace();
  const active = inboxes.filter((inbox) => inbox.status === 'active');
  const [q, setQ] = useState('');
  const [contacts, setContacts] = useState<Schemas['ContactResponse'][]>([]);
  const [contactId, setContactId] = useState('');
  const [inboxId, setInboxId] = useState(props.inboxId || active[0]?.id || '');
  const [opened, setOpened] = useState<Conversation | null>(null);
  const find = useAction(async () => {
    const found = (await api.get('/api/v1/contacts', { query: { q: q.trim() || undefined, limit: 20 } })).data;
    setContacts(found);
    setContactId(found[0]?.id ?? '');
  });
  const open = useAction(async () => {
    const conversation = await api.post('/api/v1/conversations', { body: { contact_id: contactId, inbox_id: inboxId } });
    // A conversation the customer wrote in within 24 hours needs no template: it opens as it is.
    if (conversation.window_expires_at && Date.parse(conversation.window_expires_at) > Date.now()) {
      props.onClose();
      navigate(`/conversations/${conversation.id}`);
    } else setOpened(conversation);
  });
  return (
    <Dialog title="New conversation" onClose={props.onClose}>
      {opened ? (
        <>
          <p>
            To {opened.customer.name} from {inboxes.find((inbox) => inbox.id === opened.inbox_id)?.name}: the first message is a template.
          </p>
          <TemplatePicker
            conversationId={opened.id}
            inboxId={opened.inbox_id}
            windowOpen={false}
            onSent={() => {
              props.onClose();
              navigate(`/conversations/${opened.id}`);
            }}
          />
        </>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void open.run();
          }}
        >
          <Field label="Find a contact" hint="Name, phone or username">
            <input
              type="search"
              value={q}
              onInput={(e) => setQ(valueOf(e))}
              onKeyDown={(e) => {
                if (e.key !== 'Enter') return;
                e.preventDefault();
                void find.run();
              }}
            />
          </Field>
          <button type="button" class="button secondary" onClick={() => void find.run()}>
            Find
          </button>
          <Field label="Contact">
            <select required value={contactId} onChange={(e) => setContactId(valueOf(e))}>
              {contacts.length === 0 && <option value="">Find a contact first</option>}
              {contacts.map((contact) => (
                <option value={contact.id}>
                  {contact.name ?? contact.phone ?? `@${contact.username}`} {contact.phone && contact.name ? `(${contact.phone})` : ''}
                </option>
              ))}
            </select>
          </Field>
          <Field label="From inbox">
            <select required value={inboxId} onChange={(e) => setInboxId(valueOf(e))}>
              {active.map((inbox) => (
                <option value={inbox.id}>{inbox.name}</option>
              ))}
            </select>
          </Field>
          <ErrorNote error={find.error ?? open.error} />
          <div class="dialog-actions">
            <button type="submit" class="button" disabled={open.pending || !contactId || !inboxId}>
              Open
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function ConversationRow(props: { conversation: Conversation; selected: boolean; inboxName: string | null; waiting: boolean }) {
  const { conversation: c } = props;
  const unread = c.unread_count ?? 0;
  const last = c.last_message;
  const preview = last
    ? `${last.direction === 'outbound' ? 'You: ' : last.direction === 'internal' ? 'Note: ' : ''}${last.text ?? `[${last.type}]`}`
    : '';
  const labelsById = useMemo(() => c.labels, [c.labels]);
  return (
    <a
      href={`/conversations/${c.id}`}
      class={`conversation-row${props.selected ? ' selected' : ''}${unread > 0 ? ' unread' : ''}`}
      aria-current={props.selected ? 'true' : undefined}
    >
      <span class="row-top">
        <span class="row-name">{c.customer.name}</span>
        {props.inboxName && <span class="row-inbox">{props.inboxName}</span>}
        {props.waiting && c.waiting_since ? (
          <time class="row-waiting" dateTime={c.waiting_since}>
            waiting {duration(Date.now() - Date.parse(c.waiting_since))}
          </time>
        ) : (
          <time class="row-time" dateTime={c.last_message_at}>
            {shortTime(c.last_message_at)}
          </time>
        )}
      </span>
      <span class="row-bottom">
        <span class="row-preview">{preview}</span>
        {unread > 0 && (
          <span class="unread-badge">
            {unread}
            <span class="visually-hidden"> unread</span>
          </span>
        )}
      </span>
      {labelsById.length > 0 && (
        <span class="row-labels">
          {labelsById.map((label) => (
            <span class="label-chip">{label}</span>
          ))}
        </span>
      )}
    </a>
  );
}

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, type Conversation, type Message } from '../api/client';
import { customerHandle, customerOf, duration, explainChannelError, fullTime, isWith, shortTime, tick } from '../format';
import { navigate } from '../router';
import type { StreamEvent } from '../stream';
import { ErrorNote } from '../ui';
import { useWorkspace } from '../workspace';
import { Composer } from './composer';
import { ConversationActions } from './conversation-actions';

const PAGE = 50;
const REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'];

/** Oldest first for display; the API answers newest first. */
function upsert(messages: Message[], incoming: Message[]): Message[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** The later of two states of a conversation: an answer or an event can arrive after a newer one. */
function later(current: Conversation | null, next: Conversation): Conversation {
  return current && current.id === next.id && current.updated_at > next.updated_at ? current : next;
}

/** How close to the end (px) counts as "at the newest": new messages keep it there. */
const AT_THE_END_PX = 48;

export function Thread(props: {
  conversationId: string;
  /** The caller's unread messages in it when it was opened: the thread opens at the first of them. */
  unreadAtOpen?: number;
  onRead: (id: string) => void;
  onChanged: (conversation: Conversation) => void;
}) {
  const { conversationId: id, onRead, onChanged } = props;
  const { stream, users, me } = useWorkspace();
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [olderCursor, setOlderCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [replyTo, setReplyTo] = useState<Message | null>(null);
  const [now, setNow] = useState(Date.now());
  const [unreadAtOpen] = useState(props.unreadAtOpen ?? 0);
  const [firstUnreadId, setFirstUnreadId] = useState<string | null>(null);
  const list = useRef<HTMLDivElement>(null);
  /** Whether the reader is at the newest message: a new one then stays in view; scrolled up, nothing moves. */
  const stickToBottom = useRef(true);
  const positioned = useRef(false);
  /** Each message event's place in arrival order, by message: an answer read before an event must not undo what it showed. */
  const arrivals = useRef({ count: 0, last: new Map<string, number>() });
  /** Messages answered to a request made when `since` events had arrived, kept off those an event brought after that. */
  const answered = (incoming: Message[], since: number) => (previous: Message[]) =>
    upsert(
      previous,
      incoming.filter((message) => (arrivals.current.last.get(message.id) ?? 0) <= since),
    );
  /** Set while older messages load above: the distance from the end to keep, so what was read stays put. */
  const keepFromEnd = useRef<number | null>(null);
  /**
   * Where the thread last put itself. The scroll event of that move comes a frame later, after the
   * layout may have shrunk the box (the actions wrapping): read then, it would say the reader left
   * the end, and the resize that follows would leave them 59 px above it.
   */
  const placedAt = useRef<number | null>(null);
  const place = (element: HTMLElement, top: number) => {
    element.scrollTop = top;
    placedAt.current = element.scrollTop;
  };

  const markRead = useCallback(
    (onError: (error: unknown) => void = () => undefined) => {
      api.post('/api/v1/conversations/{id}/read', { params: { id } }).then((answer) => {
        setConversation((current) => later(current, answer));
        onRead(id);
      }, onError);
    },
    [id, onRead],
  );

  useEffect(() => {
    setError(null);
    // Marking it read answers the conversation: no separate GET (the rate limit counts each request).
    markRead(setError);
    const since = arrivals.current.count;
    api.get('/api/v1/conversations/{id}/messages', { params: { id }, query: { limit: PAGE } }).then((page) => {
      // The oldest unread message: the unread are the newest inbound ones (the page is newest first).
      // Set with the messages, in one render, so the thread opens at it.
      const inbound = page.data.filter((message) => message.direction === 'inbound');
      if (unreadAtOpen > 0) setFirstUnreadId(inbound[Math.min(unreadAtOpen, inbound.length) - 1]?.id ?? null);
      setOlderCursor(page.next_cursor);
      setMessages(answered(page.data, since));
    }, setError);
  }, [id]);

  // The clock of the window's text, and a render at the moment the window closes: the composer
  // switches to templates then, without waiting for the next tick.
  const windowEndsAt = conversation?.window_expires_at ? Date.parse(conversation.window_expires_at) : null;
  useEffect(() => {
    const tick = window.setInterval(() => setNow(Date.now()), 30_000);
    const left = windowEndsAt === null ? -1 : windowEndsAt - Date.now();
    const closing = left >= 0 && left < 2 ** 31 - 1 ? window.setTimeout(() => setNow(Date.now()), left + 50) : undefined;
    return () => {
      window.clearInterval(tick);
      window.clearTimeout(closing);
    };
  }, [windowEndsAt]);

  useEffect(
    () =>
      stream.on((event: StreamEvent) => {
        const eventConversation = 'conversation' in event.data ? event.data.conversation : undefined;
        const message = 'message' in event.data ? event.data.message : undefined;
        if ((eventConversation?.id ?? message?.conversation_id) !== id) return;
        if (eventConversation) setConversation((c) => later(c, { ...c, ...eventConversation, unread_count: 0 }));
        // Every message event carries the whole message: the thread shows it as it is.
        if (message) {
          arrivals.current.last.set(message.id, ++arrivals.current.count);
          setMessages((previous) => upsert(previous, [message]));
        }
        if (event.type === 'message.received') markRead();
      }),
    [stream, id, markRead],
  );

  /** The conversation and its newest messages read again, after changes no event of the thread carried. */
  const readAgain = useCallback(() => {
    markRead(setError);
    const since = arrivals.current.count;
    api
      .get('/api/v1/conversations/{id}/messages', { params: { id }, query: { limit: PAGE } })
      .then((page) => setMessages(answered(page.data, since)), setError);
  }, [id, markRead]);

  // The stream's place came after the thread was read: what changed in between is read again.
  useEffect(() => stream.onResync(readAgain), [stream, readAgain]);

  // A merge of customers moves messages into this thread (or this thread into another's, answering
  // 404 then); an edit of the customer changes the name shown.
  useEffect(
    () =>
      stream.on((event: StreamEvent) => {
        if (event.type === 'contact.merged') readAgain();
        else if (event.type === 'contact.updated') {
          const { contact } = event.data;
          setConversation((current) => (current && isWith(current, contact) ? { ...current, customer: customerOf(contact) } : current));
        }
      }),
    [stream, readAgain],
  );

  // Where the thread stands after each change of its messages: at the first unread (or the newest)
  // when it opens, where the reader was when older ones load above, at the newest if they were there.
  useLayoutEffect(() => {
    const element = list.current;
    if (!element || messages.length === 0) return;
    if (keepFromEnd.current !== null) {
      place(element, element.scrollHeight - keepFromEnd.current);
      keepFromEnd.current = null;
    } else if (!positioned.current) {
      positioned.current = true;
      const divider = element.querySelector<HTMLElement>('.unread-divider');
      place(
        element,
        divider ? element.scrollTop + divider.getBoundingClientRect().top - element.getBoundingClientRect().top : element.scrollHeight,
      );
      // Where the divider's place is past the end of the scroll the thread stands at the end, and follows.
      stickToBottom.current = !divider || element.scrollHeight - element.scrollTop - element.clientHeight < AT_THE_END_PX;
    } else if (stickToBottom.current) {
      place(element, element.scrollHeight);
    }
  }, [messages, conversation !== null]);

  // The thread's box changes size when what is above it does (the actions wrap onto a second line
  // once the macros load): a reader at the newest stays there.
  useEffect(() => {
    const element = list.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      if (stickToBottom.current && positioned.current) place(element, element.scrollHeight);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [conversation !== null]);

  const loadOlder = async () => {
    if (!olderCursor) return;
    if (list.current) keepFromEnd.current = list.current.scrollHeight - list.current.scrollTop;
    const since = arrivals.current.count;
    try {
      const page = await api.get('/api/v1/conversations/{id}/messages', { params: { id }, query: { limit: PAGE, cursor: olderCursor } });
      setMessages(answered(page.data, since));
      setOlderCursor(page.next_cursor);
    } catch (caught) {
      setError(caught);
    }
  };

  const changed = (next: Conversation) => {
    setConversation((current) => later(current, next));
    onChanged(next);
  };
  const react = async (message: Message, emoji: string) => {
    const since = arrivals.current.count;
    try {
      // The answer is the message reacted to, with its reactions.
      const answer = (await api.post('/api/v1/conversations/{id}/messages', {
        params: { id },
        body: { type: 'reaction', reaction: { message_id: message.id, emoji } },
      })) as unknown as Message;
      if (answer?.id) setMessages(answered([answer], since));
    } catch (caught) {
      setError(caught);
    }
  };

  if (!conversation) {
    return (
      <section class="thread" aria-label="Conversation">
        <ErrorNote error={error} />
        {!error && <p class="empty">Loading…</p>}
      </section>
    );
  }

  const windowEnds = conversation.window_expires_at ? Date.parse(conversation.window_expires_at) : null;
  const windowOpen = windowEnds !== null && windowEnds > now;
  const byId = new Map(messages.map((m) => [m.id, m]));

  return (
    <section class="thread" aria-label={`Conversation with ${conversation.customer.name}`}>
      <header class="thread-header">
        <button type="button" class="button secondary back-button" onClick={() => navigate('/')}>
          ← Back
        </button>
        <div class="thread-title">
          <h1>{conversation.customer.name}</h1>
          <p class="muted">
            {customerHandle(conversation.customer)} · {conversation.status}
            {conversation.status === 'snoozed' && conversation.snoozed_until && ` until ${fullTime(conversation.snoozed_until)}`}
            {conversation.csat &&
              ` · rated ${conversation.csat.rating} of 5${conversation.csat.comment ? `: “${conversation.csat.comment}”` : ''}`}
          </p>
        </div>
        <ConversationActions conversation={conversation} onChanged={changed} onError={setError} />
      </header>
      <p class={windowOpen ? 'window-state open' : 'window-state closed'} role="status">
        {windowOpen
          ? `24-hour window open: ${duration(windowEnds! - now)} left to reply freely`
          : conversation.window_expires_at
            ? `The 24-hour window closed ${duration(now - windowEnds!)} ago: only templates can be sent until the customer writes again`
            : 'The customer has not written yet: only templates can be sent'}
      </p>
      <ErrorNote error={error} />
      <div
        class="messages"
        role="log"
        aria-label="Messages"
        aria-live="polite"
        ref={list}
        onScroll={(event) => {
          const element = event.currentTarget;
          if (element.scrollTop === placedAt.current) return;
          placedAt.current = null;
          stickToBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < AT_THE_END_PX;
        }}
      >
        {olderCursor && (
          <button type="button" class="button secondary load-more" onClick={() => void loadOlder()}>
            Load older messages
          </button>
        )}
        {messages.map((message) => [
          message.id === firstUnreadId && (
            <p class="unread-divider" key="unread-divider">
              New messages
            </p>
          ),
          <MessageBubble
            key={message.id}
            message={message}
            quoted={message.reply_to ? byId.get(message.reply_to) : undefined}
            authorName={
              message.automated ? 'Automatic' : message.sent_by ? (users.find((u) => u.id === message.sent_by)?.name ?? 'An agent') : null
            }
            mine={message.sent_by === me.id}
            onReply={() => setReplyTo(message)}
            onReact={(emoji) => void react(message, emoji)}
          />,
        ])}
      </div>
      <Composer
        conversation={conversation}
        windowOpen={windowOpen}
        replyTo={replyTo}
        onCancelReply={() => setReplyTo(null)}
        onMacroRan={changed}
        onError={setError}
        onSent={(message) => {
          stickToBottom.current = true;
          setReplyTo(null);
          // A new message: any event about it (sent, delivered) is newer than the answer.
          setMessages(answered([message], 0));
        }}
      />
    </section>
  );
}

function MessageBubble(props: {
  message: Message;
  quoted: Message | undefined;
  authorName: string | null;
  mine: boolean;
  onReply: () => void;
  onReact: (emoji: string) => void;
}) {
  const { message } = props;
  const [picking, setPicking] = useState(false);
  if (message.type === 'system') {
    return (
      <p class="system-message" role="note">
        {message.text}
      </p>
    );
  }
  const kind = message.direction === 'internal' ? 'note' : message.direction;
  const status = message.direction === 'outbound' ? tick(message.status) : null;
  const text =
    message.text ?? (message.type === 'template' ? `Template ${templateName(message)}` : message.media ? '' : `[${message.type}]`);
  return (
    <article
      class={`bubble bubble-${kind}`}
      aria-label={`${kind === 'note' ? 'Note' : kind === 'inbound' ? 'Customer' : 'Reply'} at ${shortTime(message.created_at)}`}
    >
      {kind !== 'inbound' && props.authorName && (
        <p class="bubble-author">
          {kind !== 'note' ? props.authorName : message.automated ? 'Automatic note' : `Note by ${props.authorName}`}
        </p>
      )}
      {message.reply_to && (
        <blockquote class="quote">{props.quoted ? (props.quoted.text ?? `[${props.quoted.type}]`) : 'An earlier message'}</blockquote>
      )}
      {message.media && <Media media={message.media} type={message.type} />}
      {message.type === 'location' ? (
        <LocationCard content={message.content} />
      ) : message.type === 'contacts' ? (
        <ContactCards content={message.content} />
      ) : message.type === 'interactive' && message.direction === 'outbound' ? (
        <InteractiveQuestion content={message.content} />
      ) : message.type === 'interactive' && recordOf(message.content).response !== undefined ? (
        <FlowAnswers text={text} response={recordOf(recordOf(message.content).response)} />
      ) : (
        text && <p class="bubble-text">{text}</p>
      )}
      <footer class="bubble-meta">
        <time dateTime={message.created_at} title={fullTime(message.created_at)}>
          {shortTime(message.created_at)}
        </time>
        {status && (
          <span class={status.className} aria-label={status.label} title={status.label}>
            {status.mark}
          </span>
        )}
        {message.status === 'failed' && message.error && (
          <span class="failure" title={message.error}>
            Not delivered: {explainChannelError(message.error) ?? message.error}
          </span>
        )}
      </footer>
      {message.reactions.length > 0 && (
        <p class="reactions" aria-label="Reactions">
          {message.reactions.map((reaction) => (
            <span class="reaction" title={reaction.by}>
              {reaction.emoji}
            </span>
          ))}
        </p>
      )}
      {kind !== 'note' && (
        <div class="bubble-actions">
          <button type="button" class="link-button" onClick={props.onReply}>
            Reply
          </button>
          {kind === 'inbound' && (
            <button type="button" class="link-button" aria-expanded={picking} onClick={() => setPicking(!picking)}>
              React
            </button>
          )}
          {picking && (
            <span class="emoji-picker" role="group" aria-label="Reactions">
              {REACTIONS.map((emoji) => (
                <button
                  type="button"
                  class="emoji-button"
                  aria-label={`React with ${emoji}`}
                  onClick={() => {
                    setPicking(false);
                    props.onReact(emoji);
                  }}
                >
                  {emoji}
                </button>
              ))}
            </span>
          )}
        </div>
      )}
    </article>
  );
}

/** A value of a customer's message as text, or null: the channel's payloads are stored as they came. */
const textOf = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
const numberOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const recordOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/**
 * An interactive message as the customer's phone shows it: header, body and footer, then what they
 * can tap (the reply buttons, the button that opens the list with its rows, the link or the form).
 */
function InteractiveQuestion(props: { content: Message['content'] }) {
  const interactive = recordOf(props.content);
  const header = recordOf(interactive.header);
  const action = recordOf(interactive.action);
  const parameters = recordOf(action.parameters);
  const choices: string[] =
    interactive.type === 'button'
      ? (Array.isArray(action.buttons) ? action.buttons : []).map((button) => textOf(recordOf(recordOf(button).reply).title) ?? '')
      : interactive.type === 'cta_url'
        ? [`${textOf(parameters.display_text) ?? 'Open'} ↗`]
        : interactive.type === 'flow'
          ? [textOf(parameters.flow_cta) ?? 'Open the form']
          : [`☰ ${textOf(action.button) ?? 'Choose'}`];
  const rows =
    interactive.type === 'list'
      ? (Array.isArray(action.sections) ? action.sections : []).flatMap((section) =>
          (Array.isArray(recordOf(section).rows) ? (recordOf(section).rows as unknown[]) : []).map((row) => recordOf(row)),
        )
      : [];
  return (
    <div class="interactive" aria-label="Interactive message">
      {header.type === 'text' && <p class="interactive-header">{textOf(header.text)}</p>}
      <p class="bubble-text">{textOf(recordOf(interactive.body).text)}</p>
      {textOf(recordOf(interactive.footer).text) && <p class="interactive-footer muted">{textOf(recordOf(interactive.footer).text)}</p>}
      <ul class="interactive-choices" aria-label="Choices offered">
        {choices.map((choice) => (
          <li class="interactive-choice">{choice}</li>
        ))}
      </ul>
      {rows.length > 0 && (
        <ul class="interactive-rows" aria-label="List rows">
          {rows.map((row) => (
            <li>
              {textOf(row.title)}
              {textOf(row.description) && <span class="muted"> · {textOf(row.description)}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A customer's answer to a form (a Flow): each field and what they gave, the flow token aside. */
function FlowAnswers(props: { text: string; response: Record<string, unknown> }) {
  const fields = Object.entries(props.response).filter(([name]) => name !== 'flow_token');
  return (
    <div class="flow-answers" aria-label="Form answers">
      {props.text && <p class="bubble-text">{props.text}</p>}
      <dl>
        {fields.map(([name, value]) => (
          <>
            <dt>{name.replace(/_/g, ' ')}</dt>
            <dd>
              {Array.isArray(value)
                ? value.join(', ')
                : typeof value === 'object' && value !== null
                  ? JSON.stringify(value)
                  : String(value)}
            </dd>
          </>
        ))}
      </dl>
    </div>
  );
}

/** A shared place: its name, its address and a link to the map (no map is embedded: the console loads nothing from elsewhere). */
function LocationCard(props: { content: Message['content'] }) {
  const place = recordOf(props.content);
  const [name, address, latitude, longitude] = [
    textOf(place.name),
    textOf(place.address),
    numberOf(place.latitude),
    numberOf(place.longitude),
  ];
  return (
    <div class="shared-location">
      <p class="bubble-text">📍 {name ?? 'A location'}</p>
      {address && <p class="muted">{address}</p>}
      {latitude !== null && longitude !== null && (
        <a
          href={`https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=17/${latitude}/${longitude}`}
          target="_blank"
          rel="noopener noreferrer"
        >
          Open the map ({latitude}, {longitude})
        </a>
      )}
    </div>
  );
}

interface SharedContact {
  name: string | null;
  phones: { shown: string; phone: string; type: string | null }[];
}

/** The cards of a `contacts` message as text; whatever else a card holds is left out. */
function sharedContacts(content: Message['content']): SharedContact[] {
  const cards = recordOf(content).contacts;
  return (Array.isArray(cards) ? cards : []).map((card) => {
    const fields = recordOf(card);
    const phones = (Array.isArray(fields.phones) ? fields.phones : []).flatMap((entry) => {
      const { phone, wa_id: waId, type } = recordOf(entry);
      // The WhatsApp id is the number in E.164 without its +: the one to write to; else the number's digits.
      const digits = textOf(waId)?.replace(/\D/g, '') || textOf(phone)?.replace(/\D/g, '') || '';
      return digits ? [{ shown: textOf(phone) ?? `+${digits}`, phone: `+${digits}`, type: textOf(type) }] : [];
    });
    return { name: textOf(recordOf(fields.name).formatted_name), phones };
  });
}

/** Shared contact cards: each one's name and phone numbers, each number with a way to write to it. */
function ContactCards(props: { content: Message['content'] }) {
  const cards = sharedContacts(props.content);
  const [error, setError] = useState<unknown>(null);
  const startWith = async (card: SharedContact, phone: string) => {
    setError(null);
    try {
      const found = await api.get('/api/v1/contacts', { query: { q: phone, limit: 10 } });
      const contactId =
        found.data.find((contact) => contact.phone === phone)?.id ??
        (await api.post('/api/v1/contacts', { body: { phone, tags: [], attributes: {}, ...(card.name ? { name: card.name } : {}) } })).id;
      const conversation = await api.post('/api/v1/conversations', { body: { contact_id: contactId } });
      navigate(`/conversations/${conversation.id}`);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <div class="shared-contacts">
      {cards.map((card) => (
        <div class="shared-contact">
          <p class="bubble-text">👤 {card.name ?? 'A contact'}</p>
          <ul class="plain-list">
            {card.phones.map((entry) => (
              <li>
                {entry.shown}
                {entry.type && <span class="muted"> ({entry.type.toLowerCase()})</span>}{' '}
                <button
                  type="button"
                  class="link-button"
                  aria-label={`Start a conversation with ${card.name ?? entry.phone} at ${entry.shown}`}
                  onClick={() => void startWith(card, entry.phone)}
                >
                  Start conversation
                </button>
              </li>
            ))}
          </ul>
        </div>
      ))}
      <ErrorNote error={error} />
    </div>
  );
}

function templateName(message: Message): string {
  const content = message.content as { template?: { name?: string } } | null;
  return content?.template?.name ?? '';
}

function Media(props: { media: NonNullable<Message['media']>; type: string }) {
  const { media } = props;
  if (media.status === 'pending') return <p class="muted">Downloading the {props.type}…</p>;
  if (media.status !== 'ready' || !media.url)
    return (
      <p class="muted">
        The {props.type} is not available ({media.status}).
      </p>
    );
  if (media.mime_type.startsWith('image/'))
    return <img class="media-image" src={media.url} alt={media.filename ?? `An ${props.type}`} loading="lazy" />;
  if (media.mime_type.startsWith('audio/'))
    return <audio class="media-audio" src={media.url} controls aria-label="Voice message or audio" />;
  if (media.mime_type.startsWith('video/')) return <video class="media-video" src={media.url} controls aria-label="Video" />;
  return (
    <a class="media-document" href={media.url} download={media.filename ?? undefined}>
      📄 {media.filename ?? 'Document'} {media.size ? `(${Math.ceil(media.size / 1024)} KB)` : ''}
    </a>
  );
}

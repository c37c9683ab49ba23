import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, type Conversation, type Message } from '../api/client';
import { duration, fullTime, shortTime, tick } from '../format';
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

export function Thread(props: { conversationId: string; onRead: (id: string) => void; onChanged: (conversation: Conversation) => void }) {
  const { conversationId: id, onRead, onChanged } = props;
  const { stream, users, me } = useWorkspace();
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [olderCursor, setOlderCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [replyTo, setReplyTo] = useState<Message | null>(null);
  const [now, setNow] = useState(Date.now());
  const bottom = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);

  const markRead = useCallback(
    (onError: (error: unknown) => void = () => undefined) => {
      api.post('/api/v1/conversations/{id}/read', { params: { id } }).then((answer) => {
        setConversation(answer);
        onRead(id);
      }, onError);
    },
    [id, onRead],
  );

  const loadNewest = useCallback(async () => {
    const page = await api.get('/api/v1/conversations/{id}/messages', { params: { id }, query: { limit: PAGE } });
    setMessages((previous) => upsert(previous, page.data));
    return page;
  }, [id]);

  useEffect(() => {
    setError(null);
    // Marking it read answers the conversation: no separate GET (the rate limit counts each request).
    markRead(setError);
    loadNewest().then((page) => setOlderCursor(page.next_cursor), setError);
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
        if (eventConversation) setConversation((c) => ({ ...c, ...eventConversation, unread_count: 0 }));
        // Every message event carries the whole message: the thread shows it as it is.
        if (message) setMessages((previous) => upsert(previous, [message]));
        if (event.type === 'message.received') markRead();
      }),
    [stream, id, markRead],
  );

  useEffect(() => {
    if (stickToBottom.current) bottom.current?.scrollIntoView({ block: 'end' });
  }, [messages.length]);

  const loadOlder = async () => {
    if (!olderCursor) return;
    stickToBottom.current = false;
    try {
      const page = await api.get('/api/v1/conversations/{id}/messages', { params: { id }, query: { limit: PAGE, cursor: olderCursor } });
      setMessages((previous) => upsert(previous, page.data));
      setOlderCursor(page.next_cursor);
    } catch (caught) {
      setError(caught);
    }
  };

  const changed = (next: Conversation) => {
    setConversation(next);
    onChanged(next);
  };
  const react = async (message: Message, emoji: string) => {
    try {
      const answer = (await api.post('/api/v1/conversations/{id}/messages', {
        params: { id },
        body: { type: 'reaction', reaction: { message_id: message.id, emoji } },
      })) as unknown as Message;
      if (answer?.id) setMessages((previous) => upsert(previous, [answer]));
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
            {conversation.customer.phone} · {conversation.status}
            {conversation.status === 'snoozed' && conversation.snoozed_until && ` until ${fullTime(conversation.snoozed_until)}`}
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
      <div class="messages" role="log" aria-label="Messages" aria-live="polite">
        {olderCursor && (
          <button type="button" class="button secondary load-more" onClick={() => void loadOlder()}>
            Load older messages
          </button>
        )}
        {messages.map((message) => (
          <MessageBubble
            key={message.id}
            message={message}
            quoted={message.reply_to ? byId.get(message.reply_to) : undefined}
            authorName={message.sent_by ? (users.find((u) => u.id === message.sent_by)?.name ?? 'An agent') : null}
            mine={message.sent_by === me.id}
            onReply={() => setReplyTo(message)}
            onReact={(emoji) => void react(message, emoji)}
          />
        ))}
        <div ref={bottom} />
      </div>
      <Composer
        conversation={conversation}
        windowOpen={windowOpen}
        replyTo={replyTo}
        onCancelReply={() => setReplyTo(null)}
        onSent={(message) => {
          stickToBottom.current = true;
          setReplyTo(null);
          setMessages((previous) => upsert(previous, [message]));
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
        <p class="bubble-author">{kind === 'note' ? `Note by ${props.authorName}` : props.authorName}</p>
      )}
      {message.reply_to && (
        <blockquote class="quote">{props.quoted ? (props.quoted.text ?? `[${props.quoted.type}]`) : 'An earlier message'}</blockquote>
      )}
      {message.media && <Media media={message.media} type={message.type} />}
      {text && <p class="bubble-text">{text}</p>}
      <footer class="bubble-meta">
        <time dateTime={message.created_at} title={fullTime(message.created_at)}>
          {shortTime(message.created_at)}
        </time>
        {status && (
          <span class={status.className} aria-label={status.label} title={status.label}>
            {status.mark}
          </span>
        )}
        {message.status === 'failed' && message.error && <span class="failure">Not delivered: {message.error}</span>}
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

import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Conversation, type Message, type Schemas } from '../api/client';
import { ErrorNote, useAction } from '../ui';
import { useWorkspace } from '../workspace';
import { macroCommand } from './actions-editor';
import { TemplatePicker } from './template-picker';

type Canned = Schemas['CannedResponseResponse'];
type MediaKind = 'image' | 'video' | 'audio' | 'document';

function kindOf(file: File): MediaKind {
  if (file.type.startsWith('image/')) return 'image';
  if (file.type.startsWith('video/')) return 'video';
  if (file.type.startsWith('audio/')) return 'audio';
  return 'document';
}

/** How often the composer asks the service to show "typing…" while the agent writes: the channel shows it for 25 s. */
const TYPING_EVERY_MS = 15_000;

/**
 * Replies (text, attachments, reply-to), private notes with @mentions, canned responses by
 * `/shortcut`; outside the 24-hour window, the template picker. Enter sends, Shift+Enter breaks
 * the line, `r` anywhere focuses it.
 */
export function Composer(props: {
  conversation: Conversation;
  windowOpen: boolean;
  replyTo: Message | null;
  onCancelReply: () => void;
  onSent: (message: Message) => void;
  /** A macro picked with `/` ran: the conversation as it left it. */
  onMacroRan: (conversation: Conversation) => void;
  onError: (error: unknown) => void;
}) {
  const { conversation, windowOpen } = props;
  const { users, me } = useWorkspace();
  const [mode, setMode] = useState<'reply' | 'template' | 'note'>('reply');
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [canned, setCanned] = useState<Canned[] | null>(null);
  const [macros, setMacros] = useState<Schemas['MacroResponse'][] | null>(null);
  const [mentions, setMentions] = useState<string[]>([]);
  /** An interactive canned response picked: sent as it is (its body shown, not editable) until dropped. */
  const [interactive, setInteractive] = useState<Canned['interactive']>(null);
  const [suggestion, setSuggestion] = useState(0);
  const box = useRef<HTMLTextAreaElement>(null);
  /** When the customer was last asked to see "typing…" (the service repeats it at most every 20 s anyway). */
  const typingShownAt = useRef(0);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as HTMLElement).closest('input, textarea, select') || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key !== 'r') return;
      event.preventDefault();
      box.current?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    if (props.replyTo) box.current?.focus();
  }, [props.replyTo]);

  // Canned responses and macros are loaded once, when the first `/` is typed; then filtered here.
  const slash = mode === 'reply' && /^\/[\w-]*$/.test(text) ? text.slice(1).toLowerCase() : null;
  useEffect(() => {
    if (slash !== null && canned === null)
      void api.get('/api/v1/canned-responses', { query: { limit: 100 } }).then((page) => setCanned(page.data));
    if (slash !== null && macros === null) void api.get('/api/v1/macros').then((page) => setMacros(page.data));
  }, [slash !== null]);
  const runMacro = async (macro: Schemas['MacroResponse']) => {
    setText('');
    try {
      const ran = await api.post('/api/v1/conversations/{id}/macros/{macro_id}', { params: { id: conversation.id, macro_id: macro.id } });
      props.onMacroRan(ran.conversation);
    } catch (caught) {
      props.onError(caught);
    }
  };
  const at = mode === 'note' ? /(?:^|\s)@([\p{L}\w.-]*)$/u.exec(text) : null;
  const suggestions: { key: string; label: string; pick: () => void }[] =
    slash !== null
      ? (canned ?? [])
          .filter((c) => c.shortcut.toLowerCase().startsWith(slash))
          .slice(0, 8)
          .map((c) => ({
            key: c.id,
            label: `/${c.shortcut}: ${c.interactive ? `[${interactiveKind(c.interactive)}] ` : ''}${c.text}`,
            pick: () => {
              setText(c.text);
              setInteractive(c.interactive);
            },
          }))
          .concat(
            (macros ?? [])
              .filter((macro) => macroCommand(macro).startsWith(slash))
              .slice(0, 4)
              .map((macro) => ({
                key: macro.id,
                label: `/${macroCommand(macro)}: run the macro ${macro.name}`,
                pick: () => void runMacro(macro),
              })),
          )
      : at
        ? users
            .filter((u) => u.status === 'active' && u.id !== me.id && u.name.toLowerCase().startsWith(at[1].toLowerCase()))
            .slice(0, 8)
            .map((u) => ({
              key: u.id,
              label: `@${u.name}`,
              pick: () => {
                setText(text.slice(0, text.length - at[1].length - 1) + `@${u.name} `);
                setMentions((previous) => [...new Set([...previous, u.id])]);
              },
            }))
        : [];

  const send = useAction(async () => {
    if (mode === 'note') {
      const named = mentions.filter((id) => text.includes(`@${users.find((u) => u.id === id)?.name}`));
      props.onSent(
        await api.post('/api/v1/conversations/{id}/notes', { params: { id: conversation.id }, body: { text, mentions: named } }),
      );
    } else if (interactive) {
      props.onSent(
        await api.post('/api/v1/conversations/{id}/messages', {
          params: { id: conversation.id },
          body: { type: 'interactive', interactive, ...(props.replyTo ? { reply_to: props.replyTo.id } : {}) },
        }),
      );
    } else if (file) {
      const uploaded = await api.upload('/api/v1/media', file, setProgress);
      const kind = kindOf(file);
      const media = {
        media_id: uploaded.id,
        ...(text.trim() && kind !== 'audio' ? { caption: text } : {}),
        ...(kind === 'document' ? { filename: file.name } : {}),
      };
      props.onSent(
        await api.post('/api/v1/conversations/{id}/messages', {
          params: { id: conversation.id },
          body: { type: kind, [kind]: media, ...(props.replyTo ? { reply_to: props.replyTo.id } : {}) },
        }),
      );
    } else {
      props.onSent(
        await api.post('/api/v1/conversations/{id}/messages', {
          params: { id: conversation.id },
          body: { type: 'text', text, ...(props.replyTo ? { reply_to: props.replyTo.id } : {}) },
        }),
      );
    }
    setText('');
    setInteractive(null);
    setFile(null);
    setMentions([]);
    setProgress(null);
    if (fileInput.current) fileInput.current.value = '';
  });
  const submit = () => {
    if (send.pending || (!text.trim() && !file)) return;
    void send.run().then(() => setProgress(null));
  };

  const templatesOnly = mode === 'template' || (mode === 'reply' && !windowOpen);
  return (
    <section class={`composer composer-${mode}`} aria-label="Composer">
      <div class="composer-modes" role="tablist" aria-label="Write">
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'reply'}
          class={mode === 'reply' ? 'tab active' : 'tab'}
          onClick={() => setMode('reply')}
        >
          Reply
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'template'}
          class={mode === 'template' ? 'tab active' : 'tab'}
          onClick={() => setMode('template')}
        >
          Template
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'note'}
          class={mode === 'note' ? 'tab active' : 'tab'}
          onClick={() => setMode('note')}
        >
          Private note
        </button>
      </div>
      {templatesOnly ? (
        <TemplatePicker conversationId={conversation.id} inboxId={conversation.inbox_id} windowOpen={windowOpen} onSent={props.onSent} />
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          {props.replyTo && mode === 'reply' && (
            <p class="replying">
              Replying to: <q>{props.replyTo.text ?? `[${props.replyTo.type}]`}</q>
              <button type="button" class="link-button" onClick={props.onCancelReply}>
                Cancel
              </button>
            </p>
          )}
          {suggestions.length > 0 && (
            <ul class="suggestions" role="listbox" aria-label={slash !== null ? 'Canned responses and macros' : 'Mention'}>
              {suggestions.map((s, index) => (
                <li
                  role="option"
                  aria-selected={index === suggestion}
                  class={index === suggestion ? 'suggestion active' : 'suggestion'}
                  onMouseDown={(event) => {
                    event.preventDefault();
                    s.pick();
                    box.current?.focus();
                  }}
                >
                  {s.label}
                </li>
              ))}
            </ul>
          )}
          {interactive && mode === 'reply' && (
            <p class="replying" aria-label="Interactive message to send">
              Sends {interactiveKind(interactive)}: <q>{text}</q>
              <button
                type="button"
                class="link-button"
                onClick={() => {
                  setInteractive(null);
                  setText('');
                }}
              >
                Drop
              </button>
            </p>
          )}
          <label class="field">
            <span class="field-label">
              {mode === 'note' ? 'Note for the team (@ mentions someone)' : 'Message (/ for canned responses and macros)'}
            </span>
            <textarea
              ref={box}
              rows={3}
              value={text}
              readOnly={interactive !== null && mode === 'reply'}
              onInput={(event) => {
                setText(event.currentTarget.value);
                setSuggestion(0);
                if (mode === 'reply' && windowOpen && Date.now() - typingShownAt.current > TYPING_EVERY_MS) {
                  typingShownAt.current = Date.now();
                  // A courtesy to the customer: a refusal or failure changes nothing for the agent.
                  void api.post('/api/v1/conversations/{id}/typing', { params: { id: conversation.id } }).catch(() => undefined);
                }
              }}
              onKeyDown={(event) => {
                if (suggestions.length > 0 && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
                  event.preventDefault();
                  setSuggestion((suggestion + (event.key === 'ArrowDown' ? 1 : suggestions.length - 1)) % suggestions.length);
                } else if (suggestions.length > 0 && (event.key === 'Tab' || event.key === 'Enter')) {
                  event.preventDefault();
                  suggestions[Math.min(suggestion, suggestions.length - 1)].pick();
                } else if (event.key === 'Enter' && !event.shiftKey) {
                  event.preventDefault();
                  submit();
                } else if (event.key === 'Escape') {
                  box.current?.blur();
                }
              }}
            />
          </label>
          <div class="composer-bar">
            {mode === 'reply' && (
              <label class="button secondary file-button">
                Attach
                <input
                  ref={fileInput}
                  type="file"
                  class="visually-hidden"
                  aria-label="Attach a file"
                  onChange={(event) => setFile(event.currentTarget.files?.[0] ?? null)}
                />
              </label>
            )}
            {file && (
              <span class="attachment">
                {file.name}
                {progress !== null && (
                  <progress max={1} value={progress} aria-label="Upload progress">
                    {Math.round(progress * 100)}%
                  </progress>
                )}
                <button
                  type="button"
                  class="link-button"
                  onClick={() => {
                    setFile(null);
                    if (fileInput.current) fileInput.current.value = '';
                  }}
                >
                  Remove
                </button>
              </span>
            )}
            <button type="submit" class="button" disabled={send.pending || (!text.trim() && !file)}>
              {send.pending ? 'Sending…' : mode === 'note' ? 'Add note' : 'Send'}
            </button>
          </div>
          <ErrorNote error={send.error} />
        </form>
      )}
    </section>
  );
}

/** What an interactive canned response offers, in an agent's words. */
function interactiveKind(interactive: NonNullable<Canned['interactive']>): string {
  const type = (interactive as { type?: unknown }).type;
  return type === 'list' ? 'a list' : type === 'button' ? 'reply buttons' : type === 'cta_url' ? 'a link button' : 'a form';
}

import { EVENT_TYPES } from '../../src/events/event-types';

/**
 * One parsed block of a text/event-stream: an event (id, event type, data), a position (an `id:`
 * alone), a user frame (an `event:` that is no event type, such as `counts`, with its data) or a comment.
 */
export type SseItem =
  | { kind: 'event'; id?: string; event?: string; data: string }
  | { kind: 'position'; id: string }
  | { kind: 'frame'; event: string; data: string }
  | { kind: 'comment'; text: string };

/** The items of one block (the text between blank lines), after the rules of the SSE format. */
function parseBlock(block: string): SseItem[] {
  const items: SseItem[] = [];
  const fields: Record<string, string[]> = {};
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line.startsWith(':')) {
      items.push({ kind: 'comment', text: line.slice(1).replace(/^ /, '') });
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    (fields[name] ??= []).push(value);
  }
  const event = fields.event?.at(-1);
  const data = (fields.data ?? []).join('\n');
  if (fields.id && !fields.data && !event) items.push({ kind: 'position', id: fields.id.at(-1)! });
  else if (event && !(EVENT_TYPES as readonly string[]).includes(event)) items.push({ kind: 'frame', event, data });
  else if (fields.data || fields.id || event) items.push({ kind: 'event', id: fields.id?.at(-1), event, data });
  return items;
}

/** A client of the stream through a real socket, collecting what it receives. */
export class SseClient {
  readonly items: SseItem[] = [];
  ended = false;
  private buffer = '';
  private wake: () => void = () => undefined;
  private readonly pumping: Promise<void>;

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.pumping = this.pump();
  }

  static async connect(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController();
    const response = await fetch(url, { headers, signal: abort.signal });
    return new SseClient(response, abort);
  }

  get events(): Extract<SseItem, { kind: 'event' }>[] {
    return this.items.filter((item) => item.kind === 'event');
  }

  get positions(): string[] {
    return this.items.flatMap((item) => (item.kind === 'position' ? [item.id] : []));
  }

  /** The data of the user frames named `event` (the tab counts), in arrival order. */
  frames(event: string): unknown[] {
    return this.items.flatMap((item) => (item.kind === 'frame' && item.event === event ? [JSON.parse(item.data) as unknown] : []));
  }

  get comments(): string[] {
    return this.items.flatMap((item) => (item.kind === 'comment' ? [item.text] : []));
  }

  /** Waits until `ready` holds for what arrived, failing after `timeoutMs`. */
  async until(ready: (client: SseClient) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready(this)) {
      if (this.ended) throw new Error(`stream ended; received ${JSON.stringify(this.items)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; received ${JSON.stringify(this.items)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.pumping;
  }

  private async pump(): Promise<void> {
    const reader = this.response.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.search(/\r\n\r\n|\n\n|\r\r/)) !== -1) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end).replace(/^(\r\n\r\n|\n\n|\r\r)/, '');
          this.items.push(...parseBlock(block));
          this.wake();
        }
      }
    } catch {
      // Aborted by close(), or the connection broke: either way the stream is over.
    } finally {
      this.ended = true;
      this.wake();
    }
  }
}

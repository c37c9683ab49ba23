import type { Readable } from 'node:stream';

/**
 * The objects of a readable stream, in order, as arrays of whatever is buffered at each turn:
 * one promise per batch rather than one per object, as `for await` over the stream makes (with
 * the context tracking of the logger's AsyncLocalStorage, those promises were most of a 5-million
 * line import's time). Ends with the stream; throws the stream's error. A reader that stops early
 * destroys the stream, as `for await` does: left alive without its listeners, a later error of the
 * stream (the request's body aborted, piped into it) would be an unhandled 'error' event.
 */
export async function* readInBatches<T>(stream: Readable): AsyncGenerator<T[]> {
  // Listened to for as long as the stream is read, so an error while a batch is being handled is
  // not an unhandled 'error' event; it is thrown at the next turn (stream.errored).
  let wake: () => void = () => undefined;
  const changed = (): void => wake();
  const events = ['readable', 'end', 'close', 'error'] as const;
  for (const event of events) stream.on(event, changed);
  try {
    for (;;) {
      const batch: T[] = [];
      for (let item = stream.read() as T | null; item !== null; item = stream.read() as T | null) batch.push(item);
      if (batch.length > 0) {
        yield batch;
        continue;
      }
      if (stream.errored) throw stream.errored;
      if (stream.readableEnded || stream.destroyed) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    for (const event of events) stream.off(event, changed);
    // The stream's error reached the reader already (stream.errored is set before its 'error' event
    // is emitted, a tick later), or the reader stopped: that event needs a listener still.
    stream.on('error', () => undefined);
    if (!stream.destroyed) stream.destroy();
  }
}

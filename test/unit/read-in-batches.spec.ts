import { Readable } from 'node:stream';
import { readInBatches } from '../../src/common/read-in-batches';

describe('readInBatches', () => {
  it('reads every object in order, in batches, to the end', async () => {
    const read: number[] = [];
    for await (const batch of readInBatches<{ n: number }>(Readable.from([1, 2, 3, 4, 5].map((n) => ({ n })))))
      read.push(...batch.map((o) => o.n));
    expect(read).toEqual([1, 2, 3, 4, 5]);
  });

  it('throws the error the stream fails with, its error event then handled', async () => {
    const stream = new Readable({ objectMode: true, read() {} });
    stream.push({ n: 1 });
    const reading = (async () => {
      for await (const batch of readInBatches(stream)) if (batch.length > 0) stream.destroy(new Error('body aborted'));
    })();
    await expect(reading).rejects.toThrow('body aborted');
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('destroys the stream when the reader stops early, so a later error of its source is no unhandled event', async () => {
    const stream = new Readable({ objectMode: true, read() {} });
    stream.push({ n: 1 });
    for await (const batch of readInBatches(stream)) if (batch.length > 0) break;
    expect(stream.destroyed).toBe(true);
    // Destroying a destroyed stream again emits nothing: no 'error' without a listener.
    stream.destroy(new Error('body aborted later'));
    await new Promise((resolve) => setImmediate(resolve));
  });
});

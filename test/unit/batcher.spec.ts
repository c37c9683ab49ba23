import { Batcher } from '../../src/common/batcher';

/** A flush that records each batch it is given and answers each item doubled, when released. */
function recordingFlush() {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const flush = (items: number[]) => {
    batches.push(items);
    return new Promise<number[]>((resolve) => releases.push(() => resolve(items.map((item) => item * 2))));
  };
  return { batches, releases, flush };
}

/** Resolves once `condition` holds, checking after each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('Batcher', () => {
  it('flushes the calls of one turn of the event loop together, each caller getting its own result', async () => {
    const { batches, releases, flush } = recordingFlush();
    const batcher = new Batcher(flush, { maxBatch: 10, concurrency: 1 });
    const results = Promise.all([batcher.run(1), batcher.run(2), batcher.run(3)]);
    await until(() => releases.length === 1);
    releases[0]();
    expect(await results).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('gathers the calls made while a flush runs into the next flush', async () => {
    const { batches, releases, flush } = recordingFlush();
    const batcher = new Batcher(flush, { maxBatch: 10, concurrency: 1 });
    const first = batcher.run(1);
    await until(() => releases.length === 1);
    const later = Promise.all([batcher.run(2), batcher.run(3)]);
    // Still one flush while the first runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    releases[0]();
    expect(await first).toBe(2);
    await until(() => releases.length === 2);
    releases[1]();
    expect(await later).toEqual([4, 6]);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it('takes at most maxBatch items per flush and runs up to concurrency flushes at once', async () => {
    const { batches, releases, flush } = recordingFlush();
    const batcher = new Batcher(flush, { maxBatch: 2, concurrency: 2 });
    const results = Promise.all([1, 2, 3, 4, 5].map((item) => batcher.run(item)));
    await until(() => releases.length === 2);
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    releases[0]();
    await until(() => releases.length === 3);
    releases[1]();
    releases[2]();
    expect(await results).toEqual([2, 4, 6, 8, 10]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("rejects the callers of a failed flush with its error, and the next batch's callers get their results", async () => {
    let calls = 0;
    const batcher = new Batcher<number, number>(
      async (items) => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
        return items;
      },
      { maxBatch: 10, concurrency: 1 },
    );
    const failed = Promise.allSettled([batcher.run(1), batcher.run(2)]);
    expect((await failed).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    await expect(batcher.run(3)).resolves.toBe(3);
  });

  it('rejects every caller when the flush answers a different number of results than items', async () => {
    const batcher = new Batcher<number, number>(async () => [1], { maxBatch: 10, concurrency: 1 });
    await expect(Promise.all([batcher.run(1), batcher.run(2)])).rejects.toThrow('A batch of 2 was answered with 1 results');
  });
});

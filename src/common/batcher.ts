export interface BatcherOptions {
  /** Items one flush takes at most; more wait for the next. */
  maxBatch: number;
  /** Flushes running at once. */
  concurrency: number;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Turns concurrent single calls into batched ones. Calls made in the same turn of the event loop,
 * or while `concurrency` flushes are running, wait for the next flush and share it; each caller
 * gets its own result, or the flush's error. There is no timer: at low load a call is flushed
 * after the current turn, so batching adds no latency, and under load a batch grows by itself
 * with the time a flush takes. `flush` answers one result per item, in the items' order.
 */
export class Batcher<Item, Result> {
  private waiting: Waiting<Item, Result>[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly flush: (items: Item[]) => Promise<Result[]>,
    private readonly options: BatcherOptions,
  ) {}

  run(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.options.concurrency || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flushNext();
    });
  }

  private async flushNext(): Promise<void> {
    if (this.running >= this.options.concurrency || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.options.maxBatch);
    this.running += 1;
    // What is left over may start now if another flush may run.
    this.schedule();
    try {
      const results = await this.flush(batch.map((waiting) => waiting.item));
      if (results.length !== batch.length) throw new Error(`A batch of ${batch.length} was answered with ${results.length} results`);
      batch.forEach((waiting, index) => waiting.resolve(results[index]));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      this.running -= 1;
      this.schedule();
    }
  }
}

import { InProcessJobQueue } from '../../src/queue/in-process-job-queue';
import { jobIdOf, retryDelay, WorkItem } from '../../src/queue/job-queue';

describe('retryDelay', () => {
  const schedule = [1_000, 60_000, 600_000];

  it('follows the schedule, one delay per retry', () => {
    expect([1, 2, 3].map((attemptsMade) => retryDelay(schedule, attemptsMade))).toEqual(schedule);
  });

  it('repeats the last delay past the end of the schedule', () => {
    expect(retryDelay(schedule, 7)).toBe(600_000);
  });

  it('waits at least as long as the other side asks', () => {
    expect(retryDelay(schedule, 1, 30_000)).toBe(30_000);
    expect(retryDelay(schedule, 2, 30_000)).toBe(60_000);
  });
});

describe('jobIdOf', () => {
  it('names one job per attempt at one row', () => {
    expect(jobIdOf({ id: 'a', attempt: 1 })).toBe('a:1');
    expect(jobIdOf({ id: 'a', attempt: 2 })).not.toBe(jobIdOf({ id: 'a', attempt: 1 }));
  });
});

describe('InProcessJobQueue', () => {
  let queue: InProcessJobQueue;
  beforeEach(() => {
    queue = new InProcessJobQueue();
  });
  afterEach(() => queue.beforeApplicationShutdown());

  /** Resolves when the handler has been called `count` times. */
  function handled(count: number, seen: WorkItem[], work: (item: WorkItem) => Promise<void> = () => Promise.resolve()) {
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    return {
      done,
      handle: async (item: WorkItem) => {
        seen.push(item);
        await work(item);
        if (seen.length === count) resolve();
      },
    };
  }

  it('runs the same attempt added twice while pending once, and the next attempt of the same row again', async () => {
    const seen: WorkItem[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { done, handle } = handled(2, seen, () => gate);
    queue.register('message.send', { handle });
    await queue.add('message.send', { id: 'm1', attempt: 1 });
    await queue.add('message.send', { id: 'm1', attempt: 1 });
    await queue.add('message.send', { id: 'm1', attempt: 2 });
    release();
    await done;
    expect(seen).toEqual([
      { id: 'm1', attempt: 1 },
      { id: 'm1', attempt: 2 },
    ]);
  });

  it('runs no more jobs of a kind at once than its concurrency, and all of them in the end', async () => {
    const seen: WorkItem[] = [];
    let running = 0;
    let most = 0;
    const { done, handle } = handled(5, seen, async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
    });
    queue.register('message.send', { handle, concurrency: 2 });
    for (let i = 1; i <= 5; i++) await queue.add('message.send', { id: `m${i}`, attempt: 1 });
    await done;
    expect(seen.map((item) => item.id).sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(most).toBe(2);
  });

  it('keeps running jobs after one fails', async () => {
    const seen: WorkItem[] = [];
    const { done, handle } = handled(2, seen, (item) => (item.id === 'bad' ? Promise.reject(new Error('down')) : Promise.resolve()));
    queue.register('message.send', { handle, concurrency: 1 });
    await queue.add('message.send', { id: 'bad', attempt: 1 });
    await queue.add('message.send', { id: 'good', attempt: 1 });
    await done;
    expect(seen.map((item) => item.id)).toEqual(['bad', 'good']);
  });

  it('refuses to boot while a job kind has no handler', () => {
    expect(() => queue.onApplicationBootstrap()).toThrow('No handler registered for job(s): message.send');
  });
});

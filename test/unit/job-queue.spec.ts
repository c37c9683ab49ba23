import { InProcessJobQueue } from '../../src/queue/in-process-job-queue';
import { retryDelay, RetryLaterError } from '../../src/queue/job-queue';

describe('retryDelay', () => {
  const schedule = [1_000, 60_000, 600_000];

  it('follows the schedule, one delay per retry', () => {
    expect([1, 2, 3].map((attemptsMade) => retryDelay(schedule, attemptsMade, new Error('x')))).toEqual(schedule);
  });

  it('waits at least as long as the failure asks', () => {
    expect(retryDelay(schedule, 1, new RetryLaterError('busy', 30_000))).toBe(30_000);
    expect(retryDelay(schedule, 2, new RetryLaterError('busy', 30_000))).toBe(60_000);
  });
});

describe('InProcessJobQueue', () => {
  let queue: InProcessJobQueue;
  beforeEach(() => {
    jest.useFakeTimers();
    queue = new InProcessJobQueue();
  });
  afterEach(async () => {
    await queue.beforeApplicationShutdown();
    jest.useRealTimers();
  });

  /** Runs every attempt the queue has scheduled, and those they schedule, until none is left. */
  const settle = () => jest.runAllTimersAsync();

  it('retries a failing job on the schedule and tells the last attempt it is final', async () => {
    const attempts: { attempt: number; final: boolean }[] = [];
    queue.register<null>('message.send', {
      retryDelaysMs: [5, 5],
      handle: (_, context) => {
        attempts.push(context);
        return Promise.reject(new Error('down'));
      },
    });
    await queue.add('message.send', null, 'job-1');
    await settle();
    expect(attempts).toEqual([
      { attempt: 1, final: false },
      { attempt: 2, final: false },
      { attempt: 3, final: true },
    ]);
  });

  it('runs a job added twice while pending once', async () => {
    let runs = 0;
    queue.register<null>('message.send', {
      retryDelaysMs: [],
      handle: async () => {
        runs += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    });
    await queue.add('message.send', null, 'job-1');
    await queue.add('message.send', null, 'job-1');
    await settle();
    expect(runs).toBe(1);
  });

  it('refuses to boot while a job kind has no handler', () => {
    expect(() => queue.onApplicationBootstrap()).toThrow('No handler registered for job(s): message.send');
  });
});

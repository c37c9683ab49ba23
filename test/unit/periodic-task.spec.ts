import { PeriodicTask } from '../../src/common/periodic-task';

/** A run the test ends by hand, and a record of the runs started. */
function controlledRuns() {
  const started: number[] = [];
  const finishers: (() => void)[] = [];
  const run = () =>
    new Promise<void>((resolve) => {
      started.push(Date.now());
      finishers.push(resolve);
    });
  const nextStart = async (count: number) => {
    while (started.length < count) await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, run, nextStart, finish: () => finishers.shift()?.() };
}

describe('PeriodicTask', () => {
  it('runs at start, then not again before its interval', async () => {
    const runs = controlledRuns();
    const task = new PeriodicTask({ name: 'test', run: runs.run, everyMs: () => 60_000, failed: () => undefined });
    task.start();
    await runs.nextStart(1);
    runs.finish();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs.started).toHaveLength(1);
    await task.stop();
  });

  it('runs once more right after the run under way when woken during it, not twice', async () => {
    const runs = controlledRuns();
    const task = new PeriodicTask({ name: 'test', run: runs.run, everyMs: () => 60_000, failed: () => undefined });
    task.start();
    await runs.nextStart(1);
    task.wake();
    task.wake();
    runs.finish();
    await runs.nextStart(2);
    runs.finish();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs.started).toHaveLength(2);
    await task.stop();
  });

  it('runs at once when woken between runs', async () => {
    const runs = controlledRuns();
    const task = new PeriodicTask({ name: 'test', run: runs.run, everyMs: () => 60_000, failed: () => undefined });
    task.start();
    await runs.nextStart(1);
    runs.finish();
    task.wake();
    await runs.nextStart(2);
    runs.finish();
    await task.stop();
  });

  it('hands a failed run to `failed` and goes on', async () => {
    const failures: string[] = [];
    let calls = 0;
    const task = new PeriodicTask({
      name: 'test',
      run: async () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
      },
      everyMs: () => 1,
      failed: (error) => failures.push(error.message),
    });
    task.start();
    while (calls < 2) await new Promise((resolve) => setImmediate(resolve));
    await task.stop();
    expect(failures).toEqual(['database down']);
  });

  it('waits for the run under way when stopped, and starts none after', async () => {
    const runs = controlledRuns();
    const task = new PeriodicTask({ name: 'test', run: runs.run, everyMs: () => 1, failed: () => undefined });
    task.start();
    await runs.nextStart(1);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    runs.finish();
    await stopping;
    task.wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs.started).toHaveLength(1);
  });
});

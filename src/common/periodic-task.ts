import { runLoggedAs } from './logger';

export interface PeriodicTaskOptions {
  /** What its runs log under (`task`). */
  name: string;
  /** One run; a failure is handed to `failed` and the task goes on at its next time. */
  run: () => Promise<unknown>;
  /** The wait after a run ends before the next one starts, asked after each run. */
  everyMs: () => number;
  failed: (error: Error) => void;
}

/**
 * Work an instance does again and again (the relay's cycle, the upkeep, a sweep, a prune): one run
 * at a time, the next one `everyMs` after the last ended, none after `stop`, which waits for the
 * run under way. `wake` runs it now instead of at its time; asked during a run, it runs once more
 * right after it, so what was committed during a run is not left for the next tick.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private wokenDuringRun = false;
  private stopped = true;

  constructor(private readonly options: PeriodicTaskOptions) {}

  start(firstInMs = 0): void {
    this.stopped = false;
    this.schedule(firstInMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wokenDuringRun = true;
      return;
    }
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.wokenDuringRun = false;
      // Its own context for the log, the failure and the next timer included: a wake from a
      // request's commit must not log the run under that request.
      this.running = runLoggedAs({ task: this.options.name }, () =>
        this.options
          .run()
          .then(
            () => undefined,
            (error: unknown) => this.options.failed(error instanceof Error ? error : new Error(String(error))),
          )
          .finally(() => {
            this.running = null;
            this.schedule(this.wokenDuringRun ? 0 : this.options.everyMs());
          }),
      );
    }, delayMs);
  }
}

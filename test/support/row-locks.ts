import { DataSource, QueryRunner } from 'typeorm';
import type { TestApp } from './test-app';

/**
 * A second connection that holds rows in an open transaction, as a concurrent request of the
 * service would (PostgreSQL only: PGlite has one connection). For lock-order tests: what the
 * service does meanwhile must either finish or be seen waiting for the holder.
 */
export class RowHolder {
  private constructor(
    private readonly t: TestApp,
    readonly runner: QueryRunner,
    private readonly pid: number,
  ) {}

  static async start(t: TestApp): Promise<RowHolder> {
    const runner = t.app.get(DataSource).createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
    return new RowHolder(t, runner, pid);
  }

  /**
   * 'finished' when `work` settles before any session waits for a lock this transaction holds,
   * 'waited' as soon as one does (`work` goes on in the background: end the holder, then await it).
   */
  async finishesWithoutWaiting(work: Promise<unknown>): Promise<'finished' | 'waited'> {
    let settled = false;
    const finished = work.then(
      () => 'finished' as const,
      () => 'finished' as const,
    );
    void finished.then(() => (settled = true));
    const waited = (async () => {
      while (!settled) {
        if (await this.isWaitedFor()) return 'waited' as const;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return 'finished' as const;
    })();
    return Promise.race([finished, waited]);
  }

  /** Whether a session waits for a lock this transaction holds. */
  async isWaitedFor(): Promise<boolean> {
    const [{ waiting }] = await this.t.sql<{ waiting: number }>(
      'SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
      [this.pid],
    );
    return waiting > 0;
  }

  async end(commit = false): Promise<void> {
    if (commit) await this.runner.commitTransaction();
    else await this.runner.rollbackTransaction();
    await this.runner.release();
  }
}

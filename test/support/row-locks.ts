import { Client } from 'pg';
import type { TestApp } from './test-app';

/**
 * A connection of its own that holds rows in an open transaction, as a concurrent request of the
 * service would (PostgreSQL only: PGlite has one connection). For lock-order tests: what the
 * service does meanwhile must either finish or be seen waiting for the holder. Its own connection,
 * not one of the app's pool: the app's requests waiting on the holder cannot starve it.
 */
export class RowHolder {
  private constructor(
    private readonly url: string,
    private readonly client: Client,
    private readonly pid: number,
  ) {}

  static async start(t: TestApp): Promise<RowHolder> {
    const url = t.database.env.DATABASE_URL;
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return new RowHolder(url, client, rows[0].pid);
  }

  /** Runs a statement in the holder's transaction. */
  async query(statement: string, params: unknown[] = []): Promise<void> {
    await this.client.query(statement, params);
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
    const probe = new Client({ connectionString: this.url });
    await probe.connect();
    try {
      // The probe closed under it once the work settled (and won the race): nothing left to report.
      const waited = (async () => {
        while (!settled) {
          const { rows } = await probe.query<{ waiting: number }>(
            'SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
            [this.pid],
          );
          if (rows[0].waiting > 0) return 'waited' as const;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return 'finished' as const;
      })().catch((error: unknown) => {
        if (settled) return 'finished' as const;
        throw error;
      });
      return await Promise.race([finished, waited]);
    } finally {
      await probe.end();
    }
  }

  /** Commits (a transaction the database aborted rolls back) or rolls back, and closes the connection. */
  async end(commit = false): Promise<void> {
    try {
      await this.client.query(commit ? 'COMMIT' : 'ROLLBACK');
    } finally {
      await this.client.end();
    }
  }
}

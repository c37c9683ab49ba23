import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ClosingDataSource } from './closing-data-source';
import { isDeadlock } from './errors';
import { type Db, takeWatchedWrites, watchWrites } from './sql';

/**
 * Where services get a `Db` for the repositories: `db` runs each statement on its own
 * (autocommit), `transaction` runs a unit of work that commits or rolls back whole.
 */
@Injectable()
export class Database {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get db(): Db {
    return this.dataSource.manager;
  }

  /** Runs `work` in a transaction; after its commit, tells the watch of its writes (see onCommittedWrites). */
  async transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    const { answer, afterCommit } = await this.dataSource.transaction(async (db) => {
      const result = await work(db);
      return { answer: result, afterCommit: takeWatchedWrites(db) };
    });
    for (const tell of afterCommit) tell();
    return answer;
  }

  /**
   * `transaction`, run again (up to `attempts` runs in all) when the database aborted it to break
   * a deadlock: nothing of it remains, and the same work can then succeed. For the changes whose
   * locks can meet another's in a cycle (docs/architecture.md, the order of locks).
   */
  async transactionRetryingDeadlocks<T>(work: (db: Db) => Promise<T>, attempts = 3): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction(work);
      } catch (error) {
        if (!isDeadlock(error) || attempt >= attempts) throw error;
      }
    }
  }

  /**
   * `onCommit` runs after every commit that inserted into one of `tables` or made a row of one due
   * now (see watchWrites): the relay's wake-up, so no caller has to remember it. Answers the
   * function that ends the watch.
   */
  onCommittedWrites(tables: Iterable<string>, onCommit: () => void): () => void {
    return watchWrites(this.dataSource, tables, onCommit);
  }

  /** `onCommit` runs after every commit that gave rows of one of `tables` a due time of their own (see watchWrites). */
  onCommittedReschedules(tables: Iterable<string>, onCommit: () => void): () => void {
    return watchWrites(this.dataSource, tables, onCommit, 'rescheduled');
  }

  /** `statements` run when the pool is about to close at shutdown: after the jobs have stopped, before the connections end. */
  beforeClose(statements: () => Promise<void>): void {
    if (this.dataSource instanceof ClosingDataSource) this.dataSource.beforeClose(statements);
  }
}

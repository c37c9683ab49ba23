import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
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
    let afterCommit: (() => void) | null = null;
    const result = await this.dataSource.transaction(async (db) => {
      const answer = await work(db);
      afterCommit = takeWatchedWrites(db);
      return answer;
    });
    (afterCommit as (() => void) | null)?.();
    return result;
  }

  /**
   * `onCommit` runs after every commit that inserted into one of `tables` or made a row of one due
   * now (see watchWrites): the relay's wake-up, so no caller has to remember it.
   */
  onCommittedWrites(tables: Iterable<string>, onCommit: () => void): void {
    watchWrites(this.dataSource, tables, onCommit);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Db } from './sql';

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

  transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}

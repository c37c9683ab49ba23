import { DataSource, MigrationExecutor } from 'typeorm';

/** Any fixed number works; it only has to be the same in every replica. */
const MIGRATION_LOCK_KEY = 7_263_510_001;

/**
 * Runs pending migrations while holding a PostgreSQL advisory lock, so replicas that start
 * together take turns: the first migrates, the others wait and then find nothing to do.
 * The lock and the migrations share one connection, so a pool of one cannot deadlock.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    await queryRunner.connect();
    await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const executor = new MigrationExecutor(dataSource, queryRunner);
      executor.transaction = 'each';
      const executed = await executor.executePendingMigrations();
      return executed.map((migration) => migration.name);
    } finally {
      await queryRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await queryRunner.release();
  }
}

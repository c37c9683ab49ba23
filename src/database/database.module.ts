import { DynamicModule, Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { ClosingDataSource } from './closing-data-source';
import { Database } from './database';
import { EmbeddedPostgres } from './embedded-postgres';
import { InstanceRegistry } from './instance-registry';
import { runMigrationsLocked } from './migrate';
import { MIGRATIONS } from './migrations';

const EMBEDDED_CONNECTIONS = 1;

/** A DataSource that also stops the embedded server it runs on, after its own pool has closed. */
class EmbeddedDataSource extends ClosingDataSource {
  /** PGlite is one session: the pool's connections share it, and a name prepared on one is there for all. */
  override readonly keepsPlans = false;

  constructor(
    options: DataSourceOptions,
    private readonly embedded: EmbeddedPostgres,
  ) {
    super(options);
  }

  override async destroy(): Promise<void> {
    try {
      await super.destroy();
    } finally {
      await this.embedded.stop();
    }
  }
}

/**
 * The only place that knows which engine is in use: PostgreSQL when DATABASE_URL is set,
 * otherwise embedded PGlite in DATA_DIR. Same SQL, same migrations. Global: every repository's
 * caller gets its `Db` from `Database`.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          // A start that cannot open its database says why and exits (an orchestrator restarts it);
          // the module's default, nine quiet retries 3 s apart, kept a second instance on a busy
          // DATA_DIR or an unreachable DATABASE_URL waiting half a minute.
          useFactory: () => ({ ...dataSourceOptions(config), retryAttempts: 0 }),
          dataSourceFactory: (options) => openDataSource(config, options as DataSourceOptions),
        }),
      ],
      providers: [Database, InstanceRegistry],
      exports: [Database, InstanceRegistry],
    };
  }
}

function dataSourceOptions(config: AppConfig): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.databaseUrl ?? undefined,
    extra: { max: config.databasePoolMax },
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    logging: false,
  };
}

/**
 * `node dist/src/main.js migrate`: applies the pending migrations and ends, for a deployment that
 * migrates once before its replicas start (the Kubernetes Job). Replicas still migrate at start,
 * under the same advisory lock, and then find nothing to do. Answers the migrations applied.
 */
export async function migrateOnly(config: AppConfig): Promise<string[]> {
  let applied: string[] = [];
  const dataSource = await openDataSource(config, dataSourceOptions(config), (names) => (applied = names));
  await dataSource.destroy();
  return applied;
}

/** Runs `use` on a data source of its own (migrated first), closed after. */
export async function withMigratedDataSource<T>(config: AppConfig, use: (dataSource: DataSource) => Promise<T>): Promise<T> {
  const dataSource = await openDataSource(config, dataSourceOptions(config));
  try {
    return await use(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

async function openDataSource(
  config: AppConfig,
  options: DataSourceOptions,
  onApplied: (migrations: string[]) => void = () => undefined,
): Promise<DataSource> {
  const logger = new Logger('Database');
  let dataSource: DataSource;
  if (config.databaseUrl) {
    dataSource = new ClosingDataSource(options);
  } else {
    // One connection: PGlite has one session and runs one statement at a time, and pglite-socket
    // interleaves the extended-protocol messages (Parse, Bind, Execute) of concurrent connections
    // outside transactions, which breaks their unnamed prepared statements ("bind message
    // supplies 2 parameters, but prepared statement requires 1", seen under concurrent requests).
    const embedded = await EmbeddedPostgres.start(config.dataDir, EMBEDDED_CONNECTIONS);
    logger.log(`Embedded PostgreSQL (PGlite) in ${config.dataDir}`);
    dataSource = new EmbeddedDataSource(
      { ...options, ...embedded.connectionOptions, extra: { max: EMBEDDED_CONNECTIONS } } as DataSourceOptions,
      embedded,
    );
  }
  try {
    await dataSource.initialize();
    const applied = await runMigrationsLocked(dataSource);
    if (applied.length > 0) logger.log(`Applied migrations: ${applied.join(', ')}`);
    onApplied(applied);
    return dataSource;
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    throw error;
  }
}

import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createApp } from './app';
import { Logger } from '@nestjs/common';
import { createLogger, NestPinoLogger, stdoutDestination } from './common/logger';
import { migrateOnly } from './database/database.module';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig(process.env, () => randomBytes(32).toString('base64url'));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel, stdoutDestination());
  // Log lines are written without blocking: the last ones are out before the process ends.
  const exitAfterLogs = (code: number) => logger.flush(() => process.exit(code));
  if (process.argv[2] === 'migrate') {
    // Nest's Logger (used by the migrations' log line) writes through the same pino logger.
    Logger.overrideLogger(new NestPinoLogger(logger));
    try {
      const applied = await migrateOnly(config);
      logger.info({ applied }, applied.length > 0 ? `Applied ${applied.length} migrations` : 'The database is up to date');
      exitAfterLogs(0);
    } catch (error) {
      logger.fatal({ err: error }, 'migration failed');
      exitAfterLogs(1);
    }
    return;
  }
  if (config.sessionSecretGenerated) {
    logger.warn('SESSION_SECRET is not set: a random one was generated, so tokens stop working when the process restarts');
  }
  try {
    const app = await createApp(config, logger);
    await app.listen({ port: config.port, host: config.host });
    logger.info(
      { database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})`, redis: config.redisUrl ? 'on' : 'off (in-process)' },
      `Team Inbox listening on http://${config.host}:${config.port} (API docs at /api/docs)`,
    );
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    exitAfterLogs(1);
  }
}

void main();

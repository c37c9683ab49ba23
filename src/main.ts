import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createApp } from './app';
import { Logger } from '@nestjs/common';
import { createLogger, NestPinoLogger, prettyDestination, stdoutDestination } from './common/logger';
import { UsersService } from './users/users.service';
import { migrateOnly } from './database/database.module';
import { isDatabaseUnavailable } from './database/errors';
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
  const pretty = (config.logFormat ?? (process.stdout.isTTY && !config.isProduction ? 'pretty' : 'json')) === 'pretty';
  const logger = createLogger(config.logLevel, pretty ? prettyDestination() : stdoutDestination());
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
  try {
    const app = await createApp(config, logger);
    await app.listen({ port: config.port, host: config.host });
    logger.info(
      { database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})`, redis: config.redisUrl ? 'on' : 'off (in-process)' },
      `Team Inbox listening on http://${config.host}:${config.port} (API docs at /api/docs)`,
    );
    // Nest's shutdown hooks do the work (app.enableShutdownHooks); this says what is happening.
    // Once the application has closed, Nest raises the signal again to end the process: a signal's
    // default action skips 'exit' handlers, so the last log lines (the instance leaving), still
    // being written, were lost under load. The second delivery ends the process after them instead.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      let stopping = false;
      process.on(signal, () => {
        if (stopping) {
          exitAfterLogs(0);
          return;
        }
        stopping = true;
        logger.info(`${signal}: stopping. No new request or work is taken; work in progress finishes, then this instance leaves`);
      });
    }
    const admin = app.get(UsersService).firstRunAdmin;
    if (admin) {
      const consoleUrl = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${config.port}/`;
      // The password itself only on a terminal: JSON lines go to log collectors, and the file has it.
      const lines = [
        'First start: log in to the console',
        consoleUrl,
        pretty ? `as ${admin.email} with the password ${admin.password}` : `as ${admin.email} with the password in ${admin.file}`,
        pretty ? `(kept in ${admin.file} until you change it; the console asks you to)` : '(the console asks you to change it)',
      ];
      logger.warn({ admin: admin.email, password_file: admin.file, console: consoleUrl }, lines.join(pretty ? '\n    ' : ' '));
    }
  } catch (error) {
    logger.fatal({ err: error }, `Not started: ${whyNotStarted(error, config)}`);
    exitAfterLogs(1);
  }
}

/** The reason a start failed, as a sentence for whoever runs it. */
function whyNotStarted(error: unknown, config: AppConfig): string {
  if (config.databaseUrl && isDatabaseUnavailable(error)) {
    const url = new URL(config.databaseUrl);
    return `the database at ${url.hostname}:${url.port || 5432} (DATABASE_URL) cannot be reached: ${(error as Error).message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

void main();

import { LoggerService } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { DestinationStream, Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from '../config/app-config';

/** Query parameters that carry credentials and must never reach a log line. */
const SECRET_QUERY_PARAMS = /([?&](?:access_token|token|ticket|hub\.verify_token|signature)=)[^&]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[redacted]');
}

/**
 * Standard output, written without blocking: lines written while a write is in flight go out
 * together in the next one. A synchronous write per line (pino's default) was the largest single
 * cost of a request in the CPU profile of GET /api/health (writev, 11.7% of samples). What is
 * still buffered when the process exits is written then, synchronously.
 */
export function stdoutDestination(): DestinationStream {
  const stdout = pino.destination({ dest: 1, sync: false });
  process.once('exit', () => {
    try {
      stdout.flushSync();
    } catch {
      // A write was still in flight: it completes on its own as the process ends.
    }
  });
  return stdout;
}

/** Readable lines for a person at a terminal (LOG_FORMAT=pretty), written to standard output as they come. */
export function prettyDestination(): DestinationStream {
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}

/** The process's one pino logger: JSON lines, credentials redacted wherever they could appear. */
export function createLogger(level: LogLevel, destination: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-hub-signature-256"]',
          'password',
          '*.password',
          'secret',
          '*.secret',
          'token',
          '*.token',
          'encryptionKey',
          '*.encryptionKey',
          'encryptionKeysPrevious',
          '*.encryptionKeysPrevious',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: redactUrl(req.url), id: req.id }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}

/**
 * What a log line was written for: the request being served (`reqId`), the job (`jobId`, its name
 * and attempt) or the periodic task (`task`). Set by the one that starts the work, so lines written
 * by any code during it carry it, and never those of work it merely caused: a job started from a
 * request's commit runs in its own context, not the request's.
 */
export interface LogContext {
  reqId?: string;
  jobId?: string;
  task?: string;
}
export const logContext = new AsyncLocalStorage<LogContext>();

/** Runs `work` as its own context for the log, cut off from whatever context started it. */
export function runLoggedAs<T>(context: LogContext, work: () => Promise<T>): Promise<T> {
  return logContext.run(context, work);
}

/** Routes Nest's own log calls (start-up, modules, `new Logger(...)`) into the same pino logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    // The hundred lines of routes and modules Nest prints at every start are for whoever debugs it.
    this.write(context !== undefined && START_UP_DETAIL.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    const ctx = context ?? (stackOrContext && !stackOrContext.includes('\n') ? stackOrContext : undefined);
    const stack = stackOrContext?.includes('\n') ? stackOrContext : undefined;
    const work = logContext.getStore();
    // Nest's ExceptionHandler passes the Error itself, which JSON.stringify writes as "{}".
    if (message instanceof Error) this.logger.error({ ...work, context: ctx, err: message }, message.message);
    else this.logger.error({ ...work, context: ctx, stack }, stringify(message));
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: 'info' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, context?: string): void {
    const work = logContext.getStore();
    if (message instanceof Error) {
      this.logger[level]({ ...work, context, err: message }, message.message);
    } else {
      this.logger[level]({ ...work, context }, stringify(message));
    }
  }
}

/** Nest's contexts whose `log` lines list what it set up: each module, controller and route. */
const START_UP_DETAIL = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

function stringify(message: unknown): string {
  return typeof message === 'string' ? message : JSON.stringify(message);
}

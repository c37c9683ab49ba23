import { LoggerService } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { DestinationStream, Logger } from 'pino';
import type { LogLevel } from '../config/app-config';

/** Query parameters that carry credentials and must never reach a log line. */
const SECRET_QUERY_PARAMS = /([?&](?:access_token|token|hub\.verify_token|signature)=)[^&]*/gi;

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

/** The id of the request being served, so log lines written by any code during it carry it. */
export const requestContext = new AsyncLocalStorage<{ reqId: string }>();

/** Routes Nest's own log calls (start-up, modules, `new Logger(...)`) into the same pino logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    const ctx = context ?? (stackOrContext && !stackOrContext.includes('\n') ? stackOrContext : undefined);
    const stack = stackOrContext?.includes('\n') ? stackOrContext : undefined;
    this.logger.error({ reqId: requestContext.getStore()?.reqId, context: ctx, stack }, stringify(message));
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
    const reqId = requestContext.getStore()?.reqId;
    if (message instanceof Error) {
      this.logger[level]({ reqId, context, err: message }, message.message);
    } else {
      this.logger[level]({ reqId, context }, stringify(message));
    }
  }
}

function stringify(message: unknown): string {
  return typeof message === 'string' ? message : JSON.stringify(message);
}

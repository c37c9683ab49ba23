import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fastifyRefusal } from './framework-refusals';
import { RetryLaterException } from './retry-later.exception';

/** A dependency the service needs to answer (the database), and how to tell that an error means it is down. */
export interface Dependency {
  /** As the answer names it: "Database". */
  name: string;
  isUnavailable(error: unknown): boolean;
}

/**
 * The one place a refusal becomes a response: `{"error": "<sentence>"}` and nothing else.
 * A 5xx is logged with the request id and answered without any detail of its cause. An error that
 * says a dependency is down is a 503 (a retry later can succeed), wherever it was thrown: a
 * route, a guard or a pipe.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(private readonly dependencies: readonly Dependency[] = []) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const down = exception instanceof HttpException ? undefined : this.dependencies.find((d) => d.isUnavailable(exception));
    const { status, message } = down
      ? { status: HttpStatus.SERVICE_UNAVAILABLE, message: `${down.name} is unavailable; retry later` }
      : describe(exception);
    if (status >= 500) {
      request.log.error({ err: exception }, 'request failed');
    }
    if (exception instanceof RetryLaterException)
      void reply.header('retry-after', String(Math.max(1, Math.ceil(exception.retryAfterSeconds))));
    // The route may have set another content type before failing; the error body is always JSON.
    void reply.status(status).type('application/json; charset=utf-8').send({ error: message });
  }
}

function describe(exception: unknown): { status: number; message: string } {
  if (exception instanceof ThrottlerException) {
    return { status: HttpStatus.TOO_MANY_REQUESTS, message: 'Too many requests; retry after the time given in Retry-After' };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status >= 500 && status !== HttpStatus.SERVICE_UNAVAILABLE) return internalError();
    // Nest wraps Fastify's own refusals (body parsing, size, media type) keeping them as the cause.
    return fastifyRefusal(exception.cause) ?? { status, message: messageOf(exception.getResponse()) };
  }
  return internalError();
}

function messageOf(response: string | object): string {
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return typeof message === 'string' ? message : 'Request refused';
}

function internalError(): { status: number; message: string } {
  return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'Internal server error' };
}

import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fastifyRefusal } from './framework-refusals';

/**
 * The one place a refusal becomes a response: `{"error": "<sentence>"}` and nothing else.
 * A 5xx is logged with the request id and answered without any detail of its cause.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { status, message } = describe(exception);
    if (status >= 500) {
      request.log.error({ err: exception }, 'request failed');
    }
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

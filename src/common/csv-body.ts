import { createParamDecorator, PayloadTooLargeException, UnsupportedMediaTypeException, type ExecutionContext } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';

/** The route option that lets a route take a `text/csv` body, and how large. */
interface CsvBodyOption {
  csvBody?: { maxBytes: number };
}

/**
 * Marks a route that takes a `text/csv` body of at most `maxBytes`, handed to the handler as the
 * request stream (read it with `@CsvBody()`), never buffered. Every other route refuses CSV (415),
 * as it refuses anything but JSON.
 */
export const TakesCsvBody = (maxBytes: number): MethodDecorator => RouteConfig({ csvBody: { maxBytes } } satisfies CsvBodyOption);

/**
 * Fastify's parser of `text/csv` bodies: on a route marked with `TakesCsvBody`, the body stays the
 * unread request stream (the route reads it as it arrives and counts its bytes); a Content-Length
 * over the route's limit is a 413 before anything is read. On any other route, a 415.
 */
export function registerCsvBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('text/csv', (request: FastifyRequest, payload, done) => {
    const option = (request.routeOptions.config as CsvBodyOption | undefined)?.csvBody;
    if (!option) {
      done(new UnsupportedMediaTypeException('Content-Type must be application/json'), undefined);
      return;
    }
    if (Number(request.headers['content-length']) > option.maxBytes) {
      done(new PayloadTooLargeException(`The CSV body is larger than ${option.maxBytes / 1024 / 1024} MiB`), undefined);
      return;
    }
    done(null, payload);
  });
}

/** The `text/csv` body of a route marked with `TakesCsvBody`, as a stream; a 415 when the request sent something else. */
export const CsvBody = createParamDecorator((_data: unknown, context: ExecutionContext): Readable => {
  const body = context.switchToHttp().getRequest<FastifyRequest>().body;
  if (!(body instanceof Readable)) throw new UnsupportedMediaTypeException('Content-Type must be text/csv');
  return body;
});

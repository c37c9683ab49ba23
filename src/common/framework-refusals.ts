import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** The longest path segment (an id) the router matches; a longer one is a 414. Fastify's default, stated so the answer can say it. */
export const MAX_PATH_SEGMENT_LENGTH = 100;

/** What Fastify says when it refuses a request before any route runs, in our words. */
const FASTIFY_REFUSALS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Body must not be empty when Content-Type is application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Body is larger than this endpoint accepts',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_BAD_URL: 'The URL holds a percent sign that does not start a valid percent-encoded UTF-8 sequence',
  FST_ERR_MAX_PARAM_LENGTH: `A path segment is longer than ${MAX_PATH_SEGMENT_LENGTH} characters`,
};

export interface Refusal {
  status: number;
  message: string;
}

/**
 * A refusal of Fastify's (a `FST_…` error with its status) as the API answers it: our sentence,
 * never Fastify's code or message. Null for an error that is not one of Fastify's.
 */
export function fastifyRefusal(error: unknown): Refusal | null {
  const { code, statusCode } = (error ?? {}) as { code?: unknown; statusCode?: unknown };
  if (typeof code !== 'string' || !code.startsWith('FST_')) return null;
  const status = typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 ? statusCode : 500;
  if (status === 500) return { status, message: 'Internal server error' };
  return { status, message: FASTIFY_REFUSALS[code] ?? `Request refused: ${STATUS_CODES[status] ?? 'client error'}` };
}

/** What Node's HTTP parser refuses, as the API answers it. */
function clientErrorRefusal(error: NodeJS.ErrnoException): Refusal {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, message: `The request line and headers are larger than the server accepts (${maxHeaderSize / 1024} KiB)` };
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request did not arrive in time' };
  return { status: 400, message: 'The request is not valid HTTP' };
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refuses a request (headers over
 * `maxHeaderSize`, a malformed request line or header, a timeout) before Fastify sees it, on the
 * bare socket. The answer is written there by hand, with the `{"error"}` body, and the connection
 * closed: the parser cannot go on after an error.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one to answer; a socket already closed cannot be written.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, message } = clientErrorRefusal(error);
  const body = JSON.stringify({ error: message });
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroy();
}

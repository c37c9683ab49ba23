import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's security headers for these options, computed once. Helmet is a middleware that sets
 * them on each response; @fastify/helmet called `helmet(options)` on every request, parsing the
 * Content-Security-Policy again each time (1.7% of the CPU profile of GET /api/health, plus the
 * middleware's own calls). The headers do not depend on the request, so the answer to every
 * request carries this one object.
 */
export function securityHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  } as unknown as ServerResponse;
  let failure: unknown = null;
  helmet(options)({} as IncomingMessage, response, (error?: unknown) => (failure = error ?? null));
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  return Object.freeze(headers);
}

/**
 * Child entry of the baseline: a bare Fastify server answering one fixed JSON value on every GET,
 * with Fastify's defaults (no logger, no hooks, no plugins). Forked by `startBareServer`, which
 * sends `{ routes }` over IPC; the server answers `{ port }` once it listens.
 */
import Fastify from 'fastify';
import { listeningPort, serveOnRequest } from './child-server';

export interface BareRoute {
  path: string;
  /** Parsed JSON: each response serialises it again, as a handler returning an object does. */
  body: unknown;
}

export type BareRequest = { routes: BareRoute[] };

serveOnRequest('bare server', async ({ routes }: BareRequest) => {
  const app = Fastify();
  for (const route of routes) app.get(route.path, () => route.body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: listeningPort(app.server) };
});

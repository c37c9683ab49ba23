/**
 * Child entry of the baseline: a bare Fastify server answering one fixed JSON value on every GET,
 * with Fastify's defaults (no logger, no hooks, no plugins). Forked by `startBareServer`, which
 * sends `{ routes }` over IPC; the server answers `{ port }` once it listens.
 */
import Fastify from 'fastify';

export interface BareRoute {
  path: string;
  /** Parsed JSON: each response serialises it again, as a handler returning an object does. */
  body: unknown;
}

export type BareRequest = { routes: BareRoute[] };
export type BareReady = { port: number };

async function serve({ routes }: BareRequest): Promise<void> {
  const app = Fastify();
  for (const route of routes) app.get(route.path, () => route.body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  process.send?.({ port: address.port } satisfies BareReady);
}

process.once('message', (message: BareRequest) => {
  serve(message).catch((error: unknown) => {
    process.stderr.write(`bare server: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
});

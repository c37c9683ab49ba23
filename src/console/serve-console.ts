import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where `npm run build` (Vite) writes the console: dist/console under the package's root. */
export function builtConsoleDirectory(from = __dirname): string {
  let directory = from;
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`No package.json above ${from}`);
    directory = parent;
  }
  return join(directory, 'dist', 'console');
}

/**
 * The console's pages (its router, console/src/main.tsx, draws them): each answers index.html, and
 * the page routes itself. Listed rather than caught by a wildcard, so that every other path stays
 * the API's to answer (its 404, the router's 414 for an overlong segment under /api).
 */
const CONSOLE_PAGES = [
  '/',
  '/login',
  '/accept-invite',
  '/forgot-password',
  '/reset-password',
  '/contacts',
  '/reports',
  '/teams',
  '/macros',
  '/profile',
  '/conversations/*',
  '/admin/*',
];
/** A file Vite wrote under assets/: its name carries its content's hash. */
const ASSET_NAME = /^[\w.-]+$/;

/**
 * Serves the agent console (a static single-page application) at `/`: index.html for its pages
 * (`/conversations/conv_…`, `/accept-invite?token=…`: the links the e-mails carry), revalidated on
 * every load so a new release is picked up at once; its hashed files under /assets/, cached for a
 * year, with the Brotli or gzip copy the build wrote when the browser takes one.
 *
 * When the console was not built (the API alone, from the sources), its pages answer a 404 that
 * says so.
 */
export async function serveConsole(fastify: FastifyInstance, directory: string): Promise<void> {
  const built = existsSync(join(directory, 'index.html'));
  if (built) await fastify.register(fastifyStatic, { root: directory, serve: false, preCompressed: true });

  const page = (_request: FastifyRequest, reply: FastifyReply) =>
    built
      ? reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false })
      : reply
          .code(404)
          .type('application/json; charset=utf-8')
          .send(JSON.stringify({ error: 'The console is not built: run npm run build' }));
  for (const path of CONSOLE_PAGES) fastify.get(path, page);

  fastify.get('/assets/*', (request: FastifyRequest, reply: FastifyReply) => {
    const name = (request.params as { '*': string })['*'];
    if (!built || !ASSET_NAME.test(name) || name.startsWith('.') || !existsSync(join(directory, 'assets', name)))
      return reply.callNotFound();
    return reply.sendFile(`assets/${name}`, { immutable: true, maxAge: '365d' });
  });
}

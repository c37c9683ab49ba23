import { fork } from 'node:child_process';
import type { Cleanup } from './cleanup';
import { stopChild } from './process';

/** What a child server sends over IPC once it listens. */
export type ChildReady = { port: number };

/**
 * Forks `entry` (a compiled child-server module), sends it `request` over IPC and resolves with its
 * loopback address once it answers `{ port }`. Baselines run in their own process like the
 * service: in this one, autocannon would share their event loop and make them look slower than
 * they are, flattering the service's ratio.
 */
export async function startChildServer(entry: string, label: string, request: unknown, cleanup: Cleanup): Promise<{ baseUrl: string }> {
  const child = fork(entry, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  cleanup.defer(`stop ${label} (pid ${child.pid ?? '?'})`, () => stopChild(child));

  const ready = new Promise<ChildReady>((resolve, reject) => {
    child.once('message', (message: ChildReady) => resolve(message));
    child.once('exit', (code) => reject(new Error(`${label} exited during start-up (code ${code})`)));
    child.once('error', reject);
  });
  child.send(request as object);
  const { port } = await ready;
  // The IPC channel kept open would keep this process alive after the run.
  child.disconnect();
  return { baseUrl: `http://127.0.0.1:${port}` };
}

/** The child's side: runs `serve` on the first IPC message, reports its port, or exits 1 with the error. */
export function serveOnRequest<Request>(label: string, serve: (request: Request) => Promise<{ port: number }>): void {
  process.once('message', (message: Request) => {
    serve(message)
      .then((ready) => process.send?.(ready satisfies ChildReady))
      .catch((error: unknown) => {
        process.stderr.write(`${label}: ${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      });
  });
}

/** The port a Fastify-style server listens on, after `listen({ port: 0 })`. */
export function listeningPort(server: { address(): unknown }): number {
  const address = server.address();
  if (typeof address !== 'object' || address === null || !('port' in address)) throw new Error('no address');
  return (address as { port: number }).port;
}

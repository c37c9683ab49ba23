import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { BareReady, BareRequest, BareRoute } from './bare-server';
import type { Cleanup } from './cleanup';
import { stopChild } from './process';

export type { BareRoute };

/**
 * Starts the baseline, bare Fastify serving `routes`, in a child process like the service: were it
 * in this process, autocannon would share its event loop and the baseline would look slower than
 * it is, flattering the service's ratio.
 */
export async function startBareServer(routes: BareRoute[], cleanup: Cleanup): Promise<{ baseUrl: string }> {
  // The ".js" sibling of this compiled file: the bench only runs from dist/.
  const child = fork(join(__dirname, 'bare-server.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  cleanup.defer(`stop the bare server (pid ${child.pid ?? '?'})`, () => stopChild(child));

  const ready = new Promise<BareReady>((resolve, reject) => {
    child.once('message', (message: BareReady) => resolve(message));
    child.once('exit', (code) => reject(new Error(`the bare server exited during start-up (code ${code})`)));
    child.once('error', reject);
  });
  child.send({ routes } satisfies BareRequest);
  const { port } = await ready;
  // The IPC channel kept open would keep this process alive after the run.
  child.disconnect();
  return { baseUrl: `http://127.0.0.1:${port}` };
}

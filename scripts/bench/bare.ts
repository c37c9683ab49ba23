import { join } from 'node:path';
import type { BareRequest, BareRoute } from './bare-server';
import { startChildServer } from './child-server';
import type { Cleanup } from './cleanup';

export type { BareRoute };

/** Starts the baseline, bare Fastify serving `routes`, in a child process like the service. */
export function startBareServer(routes: BareRoute[], cleanup: Cleanup): Promise<{ baseUrl: string }> {
  // The ".js" sibling of this compiled file: the bench only runs from dist/.
  return startChildServer(join(__dirname, 'bare-server.js'), 'the bare server', { routes } satisfies BareRequest, cleanup);
}

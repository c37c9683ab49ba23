import type Redis from 'ioredis';

/**
 * Closes a connection without waiting for Redis: `quit()` on a connection that is down would wait
 * for it to come back (and keep the process alive), so such a connection is just dropped.
 */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}

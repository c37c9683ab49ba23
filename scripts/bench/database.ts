import { Client } from 'pg';

/**
 * One short-lived connection to the bench database for the bench's own queries (inspection,
 * seeding, counting), named so it is recognisable in pg_stat_activity next to the service's pool.
 */
export async function withClient<T>(databaseUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'team-inbox-bench' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** How many of `wamids` are stored as a message's channel id. */
export async function countStoredWamids(databaseUrl: string, wamids: string[]): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ stored: number }>(
      'SELECT count(*)::int AS stored FROM messages WHERE channel_message_id = ANY($1::text[])',
      [wamids],
    );
    return rows[0].stored;
  });
}

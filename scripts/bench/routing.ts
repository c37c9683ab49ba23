import { parsePublicId, toPublicId } from '../../src/common/ids';
import { DEFAULT_INBOX_ID } from '../../src/common/default-inbox';
import { serviceApi } from './api';
import { withClient } from './database';
import { warnIfMachineBusy } from './machine';
import { readResident } from './service';
import { describeSize, type SeedSize } from './seed-sql';

const AGENTS = 50;
/** Enough that capacity never stops the hand-out: the figure is the router's pace, not the agents' limit. */
const CAPACITY = 10_000;
/** The longest the section watches the queue drain. */
const WATCH_MS = 60_000;
const POLL_MS = 250;

export interface RoutingContext {
  serviceUrl: string;
  token: string;
  databaseUrl: string;
  pid: number;
  size: SeedSize;
}

export interface RoutingFigures {
  waiting: number;
  assigned: number;
  seconds: number;
  perSecond: number;
}

/**
 * The router at scale: the seed's open, unassigned conversations (two thirds of the open ones, all
 * in the default inbox) are the queue; 50 agents of that inbox come online (present, as with the
 * console open) and the inbox switches to `balanced`; the section counts the conversations handed
 * to them until the queue is empty or a minute has passed. Then everything goes back: the inbox
 * assigns by hand again, the conversations return to the queue and the agents are deleted, so the
 * next sections (and the next run) see the seed (with the hand-outs' facts added to the reports').
 */
export async function benchRouting(context: RoutingContext): Promise<RoutingFigures> {
  await warnIfMachineBusy('before the routing section');
  const api = serviceApi(context.serviceUrl, context.token);
  const inboxId = toPublicId('inb', DEFAULT_INBOX_ID);
  const inbox = `/api/v1/inboxes/${inboxId}`;
  const stamp = Date.now();
  const agents: string[] = [];
  try {
    for (let n = 1; n <= AGENTS; n++) {
      const created = (await api('POST', '/api/v1/users', {
        email: `bench-router-${stamp}-${n}@example.com`,
        name: `Router Agent ${n}`,
        role: 'agent',
        password: 'bench-router-agent-password',
        inbox_ids: [inboxId],
      })) as { id: string };
      agents.push(parsePublicId('user', created.id)!);
    }
    // Online and present, as an agent with the console open is (the router reads both). The seed's
    // own agents are offline: the router also gives their conversations back to the queue, so who
    // held each is kept, to be put back after.
    const waiting = await withClient(context.databaseUrl, async (client) => {
      await client.query('DROP TABLE IF EXISTS bench_routing_holders');
      await client.query('CREATE TABLE bench_routing_holders AS SELECT id, assigned_to FROM conversations WHERE assigned_to IS NOT NULL');
      await client.query(
        `UPDATE users SET availability = 'online', availability_changed_at = now(), last_present_at = now() WHERE id = ANY($1)`,
        [agents],
      );
      const { rows } = await client.query<{ waiting: number }>(
        'SELECT count(*)::int AS waiting FROM conversations WHERE waiting_since IS NOT NULL AND inbox_id = $1',
        [DEFAULT_INBOX_ID],
      );
      return rows[0].waiting;
    });
    console.log(
      `\nrouting: ${waiting.toLocaleString('en-US')} conversations waiting (the seed's offline agents' join them as the router gives those back), ${AGENTS} agents online; the inbox turns balanced ...`,
    );
    const rssBefore = readResident(context.pid) ?? 0;
    const started = performance.now();
    await api('PATCH', inbox, { assignment: { mode: 'balanced', capacity: CAPACITY } });
    let assigned = 0;
    let seconds = 0;
    await withClient(context.databaseUrl, async (client) => {
      // Until the queue is empty: nothing handed out for two polls in a row, or a minute.
      let still = 0;
      while (still < 2 && performance.now() - started < WATCH_MS) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        const { rows } = await client.query<{ assigned: number }>(
          'SELECT count(*)::int AS assigned FROM conversations WHERE assigned_to = ANY($1)',
          [agents],
        );
        if (rows[0].assigned === assigned && assigned > 0) still += 1;
        else {
          still = 0;
          assigned = rows[0].assigned;
          seconds = (performance.now() - started) / 1000;
        }
      }
    });
    const perSecond = assigned / seconds;
    console.log(
      `routing, ${describeSize(context.size)}: ${assigned.toLocaleString('en-US')} handed out in ` +
        `${seconds.toFixed(1)} s: ${perSecond.toFixed(0)} assignments/s (service RSS ${rssBefore.toFixed(0)} -> ${(readResident(context.pid) ?? 0).toFixed(0)} MB)`,
    );
    return { waiting, assigned, seconds, perSecond };
  } finally {
    await api('PATCH', inbox, { assignment: { mode: 'manual' } });
    await withClient(context.databaseUrl, async (client) => {
      await client.query(
        `UPDATE conversations c SET assigned_to = (SELECT h.assigned_to FROM bench_routing_holders h WHERE h.id = c.id), updated_at = now()
          WHERE c.assigned_to = ANY($1)`,
        [agents],
      );
      await client.query('DROP TABLE bench_routing_holders');
    });
    for (const id of agents) await api('DELETE', `/api/v1/users/${toPublicId('user', id)}`);
    await withClient(context.databaseUrl, (client) => client.query('VACUUM (ANALYZE) conversations'));
  }
}

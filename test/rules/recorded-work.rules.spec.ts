import { randomBytes, randomUUID } from 'node:crypto';
import { Database } from '../../src/database/database';
import { InstanceRegistry } from '../../src/database/instance-registry';
import { sql } from '../../src/database/sql';
import { RecordedWorkRepository } from '../../src/recorded-work/recorded-work.repository';
import type { WorkKind } from '../../src/recorded-work/work-kind';
import { startServiceTier, ServiceTier } from '../support/service-tier';

/**
 * The protocol every kind of recorded work shares, on the rows of a kind made for the test (in
 * `template_syncs`, whose rows need nothing else; each test's ids carry a prefix of its own).
 */
describe('the recorded-work protocol (RecordedWorkRepository)', () => {
  let tier: ServiceTier;
  let repository: RecordedWorkRepository;
  let database: Database;

  beforeAll(async () => {
    tier = await startServiceTier();
    repository = tier.get(RecordedWorkRepository);
    database = tier.get(Database);
  });
  afterAll(() => tier.close());

  /** A kind whose waiting rows are this test's, and rows for it: ids `<prefix>-<name>`, due now unless said. */
  async function kindWithRows(rows: { name: string; dueInMs?: number; attempts?: number; claimedBy?: string }[]) {
    const prefix = `rule-${randomBytes(4).toString('hex')}`;
    const kind: Pick<WorkKind, 'table' | 'idType' | 'waiting' | 'needs' | 'leaseMs' | 'errorColumn'> = {
      table: 'template_syncs',
      idType: 'text',
      waiting: sql`w.id LIKE ${`${prefix}-%`}`,
      needs: { columns: sql`w.error` },
      leaseMs: 60_000,
      errorColumn: 'error',
    };
    for (const row of rows) {
      await database.db.query(
        `INSERT INTO template_syncs (id, attempts, next_attempt_at, claimed_by) VALUES ($1, $2, now() + $3 * interval '1 millisecond', $4)`,
        [`${prefix}-${row.name}`, row.attempts ?? 0, row.dueInMs ?? 0, row.claimedBy ?? null],
      );
    }
    const read = async (name: string) =>
      (
        (await database.db.query(`SELECT attempts, next_attempt_at, claimed_by, error FROM template_syncs WHERE id = $1`, [
          `${prefix}-${name}`,
        ])) as { attempts: number; next_attempt_at: Date; claimed_by: string | null; error: string | null }[]
      )[0];
    return { kind, id: (name: string) => `${prefix}-${name}`, read };
  }

  it('hands on the due rows once, each as its next attempt, and not those due later', async () => {
    const { kind, id, read } = await kindWithRows([{ name: 'due' }, { name: 'retried', attempts: 2 }, { name: 'later', dueInMs: 60_000 }]);
    const [first, second] = await Promise.all([
      repository.claimDue(database.db, kind, 10, 60_000),
      repository.claimDue(database.db, kind, 10, 60_000),
    ]);
    const handed = [...first.items, ...second.items].sort((a, b) => a.id.localeCompare(b.id));
    expect(handed).toEqual([
      { id: id('due'), attempt: 1 },
      { id: id('retried'), attempt: 3 },
    ]);
    // Leased for the hand-off: not due again until it ends.
    expect((await read('due')).next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect((await repository.claimDue(database.db, kind, 10, 60_000)).items).toEqual([]);
  });

  it('answers in how long the earliest waiting row not yet due will be, and nothing when no row waits', async () => {
    const { kind } = await kindWithRows([
      { name: 'soon', dueInMs: 30_000 },
      { name: 'later', dueInMs: 60_000 },
    ]);
    const due = await repository.claimDue(database.db, kind, 10, 5_000);
    expect(due.items).toEqual([]);
    // 30 s after the row was written, by the database's clock: a little less by now.
    expect(due.nextDueInMs).toBeGreaterThan(20_000);
    expect(due.nextDueInMs).toBeLessThanOrEqual(30_000);
    const { kind: idle } = await kindWithRows([]);
    expect(await repository.claimDue(database.db, idle, 10, 5_000)).toEqual({ items: [], nextDueInMs: null });
  });

  it('answers a row the limit left behind as due now, so the relay reads again at once', async () => {
    const { kind } = await kindWithRows([{ name: 'first' }, { name: 'second' }]);
    const due = await repository.claimDue(database.db, kind, 1, 5_000);
    expect(due.items).toHaveLength(1);
    expect(due.nextDueInMs).toBe(0);
  });

  it('claims a row for the attempt it was handed, once, recording the instance, and never for a stale attempt', async () => {
    const { kind, id, read } = await kindWithRows([{ name: 'one', attempts: 1 }]);
    const instance = randomUUID();
    const claimed = await repository.claimAttempts(database.db, kind, [{ id: id('one'), attempt: 2 }], instance);
    expect(claimed).toEqual([{ id: id('one'), attempts: 2, error: null }]);
    expect(await read('one')).toMatchObject({ attempts: 2, claimed_by: instance });
    expect(await repository.claimAttempts(database.db, kind, [{ id: id('one'), attempt: 2 }], randomUUID())).toEqual([]);
    expect(await repository.claimAttempts(database.db, kind, [{ id: id('one'), attempt: 1 }], randomUUID())).toEqual([]);
  });

  it('claims the attempts of one batch together, each row once however often it is named', async () => {
    const { kind, id } = await kindWithRows([{ name: 'a' }, { name: 'b' }]);
    const claimed = await repository.claimAttempts(
      database.db,
      kind,
      [
        { id: id('a'), attempt: 1 },
        { id: id('b'), attempt: 1 },
        { id: id('a'), attempt: 1 },
      ],
      randomUUID(),
    );
    expect(claimed.map((row) => row.id).sort()).toEqual([id('a'), id('b')]);
  });

  it('schedules a retry: the claim released, due at the time given, the reason kept', async () => {
    const { kind, id, read } = await kindWithRows([{ name: 'failing' }]);
    await repository.claimAttempts(database.db, kind, [{ id: id('failing'), attempt: 1 }], randomUUID());
    const at = new Date(Date.now() + 30_000);
    await repository.scheduleRetry(database.db, kind, id('failing'), at, 'The channel could not be reached');
    expect(await read('failing')).toEqual({
      attempts: 1,
      next_attempt_at: at,
      claimed_by: null,
      error: 'The channel could not be reached',
    });
  });

  it('makes due again only the rows claimed by an instance that is gone', async () => {
    // The tier's own instance: one made up for the test would be removed as dead by the tier's
    // sweep on the embedded engine, where every instance but the running one is gone.
    const alive = tier.get(InstanceRegistry).id;
    const { kind, read } = await kindWithRows([
      { name: 'dead', dueInMs: 60_000, claimedBy: randomUUID() },
      { name: 'alive', dueInMs: 60_000, claimedBy: alive },
      { name: 'unclaimed', dueInMs: 60_000 },
    ]);
    expect(await repository.releaseAbandoned(database.db, kind)).toBe(1);
    expect(await read('dead')).toMatchObject({ claimed_by: null });
    expect((await read('dead')).next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now());
    expect((await read('alive')).claimed_by).toBe(alive);
    expect((await read('unclaimed')).next_attempt_at.getTime()).toBeGreaterThan(Date.now());
  });
});

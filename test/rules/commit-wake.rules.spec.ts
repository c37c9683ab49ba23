import { randomBytes } from 'node:crypto';
import { Database } from '../../src/database/database';
import { execute, sql } from '../../src/database/sql';
import { startServiceTier, ServiceTier } from '../support/service-tier';

/**
 * The relay is woken by the commits that record work or events (Database.onCommittedWrites): here
 * a watch of `template_syncs` counts the commits it is told of, on rows named for each test.
 */
describe('the wake-up after a commit (Database.onCommittedWrites)', () => {
  let tier: ServiceTier;
  let database: Database;
  let told = 0;
  let unwatch: () => void;

  beforeAll(async () => {
    tier = await startServiceTier();
    database = tier.get(Database);
    unwatch = database.onCommittedWrites(['template_syncs'], () => (told += 1));
  });
  afterAll(async () => {
    unwatch();
    await tier.close();
  });
  beforeEach(() => (told = 0));

  const id = () => `wake-${randomBytes(6).toString('hex')}`;
  const insert = (db = database.db, row = id()) =>
    execute(db, sql`INSERT INTO template_syncs (id, next_attempt_at) VALUES (${row}, now())`);

  it('tells the watch once after the commit of a transaction that inserted into its table, not before', async () => {
    await database.transaction(async (db) => {
      await insert(db);
      await insert(db);
      expect(told).toBe(0);
    });
    expect(told).toBe(1);
  });

  it('tells it nothing of a transaction rolled back', async () => {
    await expect(
      database.transaction(async (db) => {
        await insert(db);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(told).toBe(0);
  });

  it('tells it at once of a statement on its own', async () => {
    await insert();
    expect(told).toBe(1);
  });

  it('tells it of an update that makes a row due now, and not of one that moves it later', async () => {
    const row = id();
    await insert(database.db, row);
    told = 0;
    await execute(database.db, sql`UPDATE template_syncs SET next_attempt_at = now() + interval '1 hour' WHERE id = ${row}`);
    expect(told).toBe(0);
    await execute(database.db, sql`UPDATE template_syncs SET next_attempt_at = now() WHERE id = ${row}`);
    expect(told).toBe(1);
  });

  it('tells it nothing of a write to a table it does not watch', async () => {
    await execute(
      database.db,
      sql`INSERT INTO instances (id, started_at, seen_at) VALUES (gen_random_uuid(), now(), now() - interval '1 hour')`,
    );
    expect(told).toBe(0);
  });
});

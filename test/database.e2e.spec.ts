import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config';
import { migrateOnly } from '../src/database/database.module';
import { Database } from '../src/database/database';
import { MIGRATIONS } from '../src/database/migrations';
import { keptPlanName, query, sql } from '../src/database/sql';
import { describeWithPglite, describeWithPostgres } from './support/environment';
import { ADMIN, startTestApp } from './support/test-app';
import { createTestDatabase } from './support/test-database';

describeWithPostgres('migrations on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  it('lets three replicas start at once on an empty database, each migration applied once', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const apps = await Promise.all([1, 2, 3].map(() => startTestApp({ database })));
      const migrations = await database.query<{ name: string }>('SELECT name FROM migrations ORDER BY id');
      expect(migrations.map((m) => m.name)).toEqual(MIGRATIONS.map((migration) => new migration().name));
      const admins = await database.query<{ count: string }>("SELECT count(*) FROM users WHERE role = 'admin'");
      expect(admins[0].count).toBe('1');
      await Promise.all(apps.map((app) => app.close()));
    } finally {
      await database.drop();
    }
  });
});

describeWithPostgres('migrating once before the replicas start (npm run migrate, the Kubernetes Job)', () => {
  it('applies every migration to an empty database, then finds nothing to do, and a replica starts on it', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const config = loadConfig({ NODE_ENV: 'test', ...database.env }, () => 'a-generated-secret-for-this-test-only');
      expect(await migrateOnly(config)).toEqual(MIGRATIONS.map((migration) => new migration().name));
      expect(await migrateOnly(config)).toEqual([]);
      expect(await database.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'conversation_counters'")).toHaveLength(1);
      const app = await startTestApp({ database });
      expect((await app.request('GET', '/api/health/ready')).status).toBe(200);
      await app.close();
    } finally {
      await database.drop();
    }
  });
});

describeWithPglite('embedded database (PGlite)', () => {
  it('keeps its data in DATA_DIR across a restart', async () => {
    const database = await createTestDatabase();
    try {
      const first = await startTestApp({ database });
      const created = await first.createUser({ email: 'persisted@example.com' });
      await first.close();

      const second = await startTestApp({ database });
      const answer = await second.request('GET', `/api/v1/users/${created.id}`, { token: await second.adminToken() });
      expect(answer.status).toBe(200);
      expect(answer.body.email).toBe('persisted@example.com');
      await second.close();
    } finally {
      await database.drop();
    }
  });

  it('refuses a second process on the same DATA_DIR with a message naming it', async () => {
    const database = await createTestDatabase();
    try {
      const first = await startTestApp({ database });
      await expect(startTestApp({ database })).rejects.toThrow(new RegExp(`DATA_DIR ${database.env.DATA_DIR} is in use by process`));
      expect((await first.request('POST', '/api/v1/auth/login', { body: ADMIN })).status).toBe(200);
      await first.close();
    } finally {
      await database.drop();
    }
  });
});

describe('statements that keep their plan', () => {
  /** What the transaction's connection has prepared, after a statement asked to keep its plan and one not asked. */
  const preparedAfterBoth = async () => {
    const app = await startTestApp();
    try {
      return await app.app.get(Database).transaction(async (db) => {
        expect(await query(db, sql`SELECT ${7}::int AS kept`, { keepPlan: true })).toEqual([{ kept: 7 }]);
        expect(await query(db, sql`SELECT ${8}::int AS planned_each_time`)).toEqual([{ planned_each_time: 8 }]);
        return (await query<{ statement: string }>(db, sql`SELECT statement FROM pg_prepared_statements`)).map((row) => row.statement);
      });
    } finally {
      await app.close();
    }
  };

  describeWithPostgres('on PostgreSQL', () => {
    it('prepares the statement asked to keep its plan on its connection, and not the other', async () => {
      const prepared = await preparedAfterBoth();
      expect(prepared).toContain('SELECT $1::int AS kept');
      expect(prepared).not.toContain('SELECT $1::int AS planned_each_time');
    });

    it('runs a statement unnamed on a connection whose server lost it, outside a transaction, and fails it inside one', async () => {
      const app = await startTestApp();
      // Two connections held at once: the one that lost a statement runs them all unnamed after.
      const [outside, inside] = [app.app.get(DataSource).createQueryRunner(), app.app.get(DataSource).createQueryRunner()];
      await outside.connect();
      await inside.connect();
      try {
        const lost = sql`SELECT ${9}::int AS lost`;
        expect(await query(outside.manager, lost, { keepPlan: true })).toEqual([{ lost: 9 }]);
        const prepared = () => outside.query('SELECT count(*)::int AS prepared FROM pg_prepared_statements');
        expect(await prepared()).toEqual([{ prepared: 1 }]);
        await outside.query('DEALLOCATE ALL');
        expect(await query(outside.manager, lost, { keepPlan: true })).toEqual([{ lost: 9 }]);
        // And every statement that keeps its plan, from then on on that connection: none prepared.
        expect(await query(outside.manager, sql`SELECT ${10}::int AS next`, { keepPlan: true })).toEqual([{ next: 10 }]);
        expect(await prepared()).toEqual([{ prepared: 0 }]);

        expect(await query(inside.manager, lost, { keepPlan: true })).toEqual([{ lost: 9 }]);
        await inside.query('DEALLOCATE ALL');
        // Inside a transaction the error has aborted it: nothing can run there any more.
        await inside.startTransaction();
        await expect(query(inside.manager, lost, { keepPlan: true })).rejects.toThrow(/prepared statement .* does not exist/);
        await inside.rollbackTransaction();
      } finally {
        await outside.release();
        await inside.release();
        await app.close();
      }
    });

    it('runs a statement unnamed on a connection where the server holds another of its name (another client of a pooler)', async () => {
      const app = await startTestApp();
      const runner = app.app.get(DataSource).createQueryRunner();
      try {
        const statement = sql`SELECT ${12}::int AS taken_name`;
        await runner.query(`PREPARE ${keptPlanName(statement.compile().text)} AS SELECT 0`);
        expect(await query(runner.manager, statement, { keepPlan: true })).toEqual([{ taken_name: 12 }]);
      } finally {
        await runner.release();
        await app.close();
      }
    });
  });

  describeWithPglite('on the embedded engine', () => {
    it('prepares neither: its connections share one session', async () => {
      const prepared = await preparedAfterBoth();
      expect(prepared).not.toContain('SELECT $1::int AS kept');
      expect(prepared).not.toContain('SELECT $1::int AS planned_each_time');
    });
  });
});

describe('schema', () => {
  it('has an index led by the column of every foreign key, which deleting the row it refers to looks up', async () => {
    const t = await startTestApp();
    try {
      const unindexed = await t.sql<{ tbl: string; col: string }>(
        `SELECT c.conrelid::regclass::text AS tbl, a.attname AS col
           FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
          WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
            AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])
          ORDER BY 1, 2`,
      );
      expect(unindexed).toEqual([]);
      const foreignKeys = await t.sql<{ count: string | number }>(
        "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace",
      );
      expect(Number(foreignKeys[0].count)).toBeGreaterThan(20);
    } finally {
      await t.close();
    }
  });
});

import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isProcessAlive } from '../common/process-alive';

/**
 * PostgreSQL in WASM (PGlite), served on a private unix socket so the ordinary `pg` driver and
 * TypeORM use it exactly as they use a real server: one code path for both engines.
 *
 * Two processes opening one data directory corrupt it, so the directory is locked for the life
 * of the process and a second process is refused with a message naming the directory.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly socketDir: string,
    private readonly lockFile: string,
  ) {}

  static async start(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
    const root = resolve(dataDir);
    mkdirSync(root, { recursive: true });
    const lockFile = lockDataDir(root);
    const socketDir = mkdtempSync(join(tmpdir(), 'team-inbox-pg-'));
    try {
      // pg_trgm and unaccent serve the text searches, as on PostgreSQL; PGlite loads extensions per instance.
      const db = await PGlite.create(join(root, 'pgdata'), { extensions: { pg_trgm, unaccent } });
      const server = new PGLiteSocketServer({ db, path: join(socketDir, '.s.PGSQL.5432'), maxConnections });
      await server.start();
      return new EmbeddedPostgres(db, server, socketDir, lockFile);
    } catch (error) {
      rmSync(socketDir, { recursive: true, force: true });
      rmSync(lockFile, { force: true });
      throw error;
    }
  }

  /** Connection options for `pg`: a host that is a directory means a unix socket inside it. */
  get connectionOptions(): { host: string; port: number; username: string; database: string } {
    return { host: this.socketDir, port: 5432, username: 'postgres', database: 'postgres' };
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    rmSync(this.socketDir, { recursive: true, force: true });
    rmSync(this.lockFile, { force: true });
  }
}

function lockDataDir(root: string): string {
  const lockFile = join(root, 'team-inbox.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return lockFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockFile, 'utf8'));
      if (isProcessAlive(holder)) {
        throw new Error(
          `DATA_DIR ${root} is in use by process ${holder}. Two processes must not share the embedded database: ` +
            'stop the other one, give this one another DATA_DIR, or set DATABASE_URL to a PostgreSQL server.',
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`DATA_DIR ${root}: could not take the lock file ${lockFile}`);
}

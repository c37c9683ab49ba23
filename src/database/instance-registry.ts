import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { newUuid } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { Database } from './database';
import { execute, sql } from './sql';

const HEARTBEAT_EVERY_MS = 2_000;
/** Four missed heartbeats: the process is gone (killed, or cut off from the database). */
const DEAD_AFTER_MS = 8_000;

/**
 * This process among the others on the same database: its id (recorded on the work it claims),
 * and a heartbeat every 2 s in `instances`, so that the work claimed by a process that died
 * (kill -9, a lost machine) is known to be abandoned seconds later rather than after its lease.
 * The embedded engine is one process by construction (DATA_DIR is locked): at start, every other
 * instance is gone.
 */
@Injectable()
export class InstanceRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly id = newUuid();
  private readonly logger = new Logger(InstanceRegistry.name);
  private timer?: NodeJS.Timeout;
  /** The heartbeat being written, if one is: leaving waits for it, so it cannot write the row again after. */
  private beating: Promise<void> = Promise.resolve();
  private leaving = false;
  private readonly exclusive: boolean;

  constructor(
    private readonly database: Database,
    config: AppConfig,
  ) {
    this.exclusive = config.databaseUrl === null;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beating = this.beat();
    }, HEARTBEAT_EVERY_MS).unref();
    // The last statement before the pool closes, after the jobs running here have finished (the
    // before-shutdown hooks): a clean stop leaves nothing claimed, and the next start nothing to take up.
    this.database.beforeClose(() => this.leave());
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async leave(): Promise<void> {
    this.leaving = true;
    clearInterval(this.timer);
    await this.beating;
    await execute(this.database.db, sql`DELETE FROM instances WHERE id = ${this.id}`);
    this.logger.log('Left the instances on this database: nothing of this instance is left to take up');
  }

  /**
   * Removes the instances that stopped beating (every other one, on the embedded engine): work
   * claimed by an instance that is not in the table is abandoned (see RecordedWorkRepository.releaseAbandoned).
   */
  async removeDead(): Promise<void> {
    const condition = this.exclusive ? sql`id <> ${this.id}` : sql`seen_at < now() - ${DEAD_AFTER_MS} * interval '1 millisecond'`;
    const removed = await execute(this.database.db, sql`DELETE FROM instances WHERE ${condition}`);
    if (removed > 0) this.logger.warn(`${removed} instance(s) stopped without leaving: their work in progress is taken up again`);
  }

  private async beat(): Promise<void> {
    if (this.leaving) return;
    try {
      await execute(
        this.database.db,
        sql`INSERT INTO instances (id, started_at, seen_at) VALUES (${this.id}, now(), now()) ON CONFLICT (id) DO UPDATE SET seen_at = now()`,
      );
    } catch (error) {
      this.logger.warn(`Heartbeat not written: ${(error as Error).message}`);
    }
  }
}

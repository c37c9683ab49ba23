import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { formatDuration } from '../config/duration';
import { ConversationsService } from '../conversations/conversations.service';
import { Database } from '../database/database';
import { InboxesService } from '../inboxes/inboxes.service';

/** How often every instance looks for conversations gone quiet: one closes within this of its time. */
const CHECK_EVERY_MS = 30_000;
/** How many one transaction closes. */
const CLOSE_BATCH = 200;

/**
 * Auto-resolve, on every instance: the open conversations of an inbox with `auto_resolve_after`
 * that had no message for that long are closed, each with a note saying so. Snoozed ones are not
 * open and are left. The close skips rows another transaction holds and checks the status again
 * on the row, so replicas running it at once close each conversation once; nothing is claimed,
 * so a crash leaves nothing behind.
 */
@Injectable()
export class AutoResolve implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AutoResolve.name);
  private readonly task = new PeriodicTask({
    name: 'auto-resolve',
    run: () => this.run(),
    everyMs: () => CHECK_EVERY_MS,
    failed: (error) => this.logger.warn(`Auto-resolve failed, trying again: ${error.message}`),
  });

  constructor(
    private readonly database: Database,
    private readonly inboxes: InboxesService,
    private readonly conversations: ConversationsService,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(CHECK_EVERY_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** One pass over every inbox that resolves by itself; answers how many conversations it closed. Public for the tests. */
  async run(): Promise<number> {
    let total = 0;
    for (const inbox of await this.inboxes.autoResolving(this.database.db)) {
      const afterMs = inbox.auto_resolve_after_seconds * 1000;
      const note = `Closed automatically after ${formatDuration(afterMs)} without a message`;
      for (;;) {
        const closed = await this.conversations.closeSilent(inbox.id, new Date(Date.now() - afterMs), note, CLOSE_BATCH);
        total += closed;
        if (closed < CLOSE_BATCH) break;
      }
    }
    return total;
  }
}

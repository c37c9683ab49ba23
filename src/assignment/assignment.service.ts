import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { AppConfig } from '../config/app-config';
import { ConversationsService } from '../conversations/conversations.service';
import { Database } from '../database/database';
import { InboxesService } from '../inboxes/inboxes.service';
import { UsersService } from '../users/users.service';
import { planAssignments } from './agent-chooser';
import { AgentLoadResponse } from './assignment.dto';
import { AssignmentRepository } from './assignment.repository';

/** How many waiting conversations one router transaction considers: the lock is held for this many assignments at most. */
const ROUTE_BATCH = 50;
/** How many conversations one transaction gives back to the queue. */
const RETURN_BATCH = 200;
/** How often every instance looks at the queue when nothing woke it: a missed wake-up (another instance's change, a crash) waits this long at most. */
const CHECK_EVERY_MS = 1_000;

/**
 * The router: conversations of the inboxes that assign by themselves (`round_robin`, `balanced`)
 * reach an agent who is there.
 *
 * Two tasks on every instance. The upkeep, every second and whenever any instance changes a user:
 * agents `online` without an event stream for AVAILABILITY_TIMEOUT become `offline`, and
 * conversations whose agent left the inbox or stayed offline past the timeout go back to the
 * queue. The hand-out: the queue given to available agents, oldest first.
 *
 * Handing out is one transaction per batch, holding one advisory lock that every router
 * transaction on every instance takes first, so two never choose at once: each reads the agents'
 * open conversations after the last one committed, and no agent goes over capacity or gets a
 * conversation twice. The conversations are locked (SKIP LOCKED: one a customer or an agent is
 * changing waits for the next turn) and the chosen agents held against deletion until the commit.
 *
 * A turn runs when anything that may change the queue commits on this instance (every commit that
 * records an event: a conversation created, reopened, unassigned or closed), when any instance
 * changes a user (availability, membership), when an inbox changes, and every second regardless.
 * Nothing is claimed, so a crash leaves nothing behind: the queue is the conversations' state.
 */
@Injectable()
export class AssignmentService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AssignmentService.name);
  private readonly handOutTask = new PeriodicTask({
    name: 'router',
    run: () => this.handOut(),
    everyMs: () => CHECK_EVERY_MS,
    failed: (error) => this.logger.warn(`Router turn failed, trying again: ${error.message}`),
  });
  private readonly upkeepTask = new PeriodicTask({
    name: 'router-upkeep',
    run: () => this.upkeep(),
    everyMs: () => CHECK_EVERY_MS,
    failed: (error) => this.logger.warn(`Router upkeep failed, trying again: ${error.message}`),
  });
  private readonly stopWatching: () => void;

  constructor(
    private readonly database: Database,
    private readonly assignment: AssignmentRepository,
    private readonly conversations: ConversationsService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
    inboxes: InboxesService,
  ) {
    this.stopWatching = database.onCommittedWrites(['events'], () => this.handOutTask.wake());
    users.onChanged(() => {
      this.upkeepTask.wake();
      this.handOutTask.wake();
    });
    inboxes.whenChanged(() => Promise.resolve(this.handOutTask.wake()));
  }

  onApplicationBootstrap(): void {
    this.upkeepTask.start();
    this.handOutTask.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopWatching();
    await Promise.all([this.upkeepTask.stop(), this.handOutTask.stop()]);
  }

  /** Every user's availability and load, for the team's view. */
  async loads(): Promise<AgentLoadResponse[]> {
    return (await this.assignment.loads(this.database.db)).map(AgentLoadResponse.of);
  }

  /** The upkeep, then the hand-out, now; answers how many conversations were handed out. Public for the tests and the bench. */
  async turn(): Promise<number> {
    await this.upkeep();
    return this.handOut();
  }

  private async upkeep(): Promise<void> {
    const timeoutMs = this.config.availabilityTimeoutMs;
    await this.users.timeOutAbsent(timeoutMs);
    await this.returnStranded(timeoutMs);
  }

  private async returnStranded(timeoutMs: number): Promise<void> {
    for (;;) {
      const returned = await this.database.transaction(async (db) => {
        const stranded = await this.assignment.stranded(db, timeoutMs, RETURN_BATCH);
        const byAgent = new Map<string, string[]>();
        for (const conversation of stranded)
          byAgent.set(conversation.assigned_to, [...(byAgent.get(conversation.assigned_to) ?? []), conversation.id]);
        let count = 0;
        for (const [agentId, ids] of byAgent) count += await this.conversations.returnToQueue(db, ids, agentId);
        return { found: stranded.length, count };
      });
      // Rows another transaction held are left for the next turn.
      if (returned.found < RETURN_BATCH || returned.count === 0) return;
    }
  }

  private async handOut(): Promise<number> {
    if (!(await this.assignment.anyWaiting(this.database.db))) return 0;
    const timeoutMs = this.config.availabilityTimeoutMs;
    let total = 0;
    let after: { waitingSince: Date; id: string } | null = null;
    for (;;) {
      const batch = await this.database.transaction(async (db) => {
        await this.assignment.lockRouter(db);
        const queue = await this.assignment.waiting(db, ROUTE_BATCH, after);
        if (queue.length === 0) return { considered: 0, assigned: 0, last: null };
        const agents = await this.assignment.available(db, [...new Set(queue.map((conversation) => conversation.inboxId))], timeoutMs);
        const plan = planAssignments(queue, agents, Date.now());
        for (const assignment of plan) {
          await this.conversations.assignByRouter(db, assignment.conversationId, assignment.agentId);
          await this.users.markAssigned(db, assignment.agentId, new Date(assignment.at));
        }
        const last = queue[queue.length - 1];
        return { considered: queue.length, assigned: plan.length, last: { waitingSince: last.waitingSince, id: last.id } };
      });
      total += batch.assigned;
      // A full batch may have more behind it that someone can take (another inbox's, another team's).
      if (batch.considered < ROUTE_BATCH) return total;
      after = batch.last;
    }
  }
}

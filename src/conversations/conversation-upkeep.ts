import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { ConversationsService } from './conversations.service';

/**
 * How often every instance looks for snoozes whose time has come: a snooze ends within this of
 * its time. The look is one probe of a partial index that holds only the snoozed conversations.
 */
const CHECK_EVERY_MS = 1_000;
/** How often the ledger of the tabs' counts is folded: what a count sums grows for this long. */
const FOLD_EVERY_CHECKS = 5;

/**
 * The conversations' own upkeep, on every instance.
 *
 * Ends snoozes by itself: every second, in one transaction, the snoozed conversations whose time
 * has come are opened again and their conversation.reopened events recorded. The UPDATE that
 * opens them is its own guard against doing it twice: it skips rows another transaction holds and
 * only changes rows still snoozed, so replicas running it at the same moment, or a customer's
 * message reopening the conversation meanwhile, leave one reopening per snooze. Nothing is
 * claimed, so nothing is left behind by a crash: a snooze due while every instance is down ends
 * at the next start.
 *
 * Folds the ledger of the counts of the inbox's tabs every few seconds, so counting sums a few
 * hundred rows (see ConversationRepository.foldCounters, safe on several replicas at once).
 */
@Injectable()
export class ConversationUpkeep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ConversationUpkeep.name);
  private checks = 0;
  private readonly task = new PeriodicTask({
    name: 'conversation-upkeep',
    run: () => this.upkeep(),
    everyMs: () => CHECK_EVERY_MS,
    failed: (error) => this.logger.warn(`Upkeep failed, trying again: ${error.message}`),
  });

  constructor(private readonly conversations: ConversationsService) {}

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  private async upkeep(): Promise<void> {
    try {
      await this.conversations.wakeDueSnoozes();
    } catch (error) {
      this.logger.warn(`Snoozed conversations not woken, trying again: ${(error as Error).message}`);
    }
    this.checks += 1;
    if (this.checks % FOLD_EVERY_CHECKS !== 0) return;
    try {
      await this.conversations.foldCounters();
    } catch (error) {
      this.logger.warn(`Counts of the tabs not folded, trying again: ${(error as Error).message}`);
    }
  }
}

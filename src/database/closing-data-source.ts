import { DataSource } from 'typeorm';

/**
 * A DataSource that runs its last statements before its pool closes (`beforeClose`): the one
 * moment at shutdown that comes after every job has stopped (the before-shutdown hooks) and while
 * the database still answers, whatever order Nest closes the modules in.
 */
export class ClosingDataSource extends DataSource {
  /** Each pooled connection is a session of its own, which keeps the statements prepared on it (RunOptions.keepPlan). */
  readonly keepsPlans: boolean = true;
  private readonly lastStatements: (() => Promise<void>)[] = [];

  beforeClose(statements: () => Promise<void>): void {
    this.lastStatements.push(statements);
  }

  override async destroy(): Promise<void> {
    for (const statements of this.lastStatements.splice(0)) await statements().catch(() => undefined);
    await super.destroy();
  }
}

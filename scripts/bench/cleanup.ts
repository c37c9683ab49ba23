/**
 * Undo steps for everything a benchmark starts (child processes, temporary directories), run in
 * reverse order exactly once: on success, on error and on Ctrl+C alike. A benchmark that leaves a
 * server or a gigabyte of PGlite files behind after a failure is worse than one that fails.
 */
export class Cleanup {
  private readonly steps: { label: string; run: () => Promise<void> | void }[] = [];
  private running: Promise<void> | null = null;

  /** Registers an undo step; the last one registered runs first (children before their files). */
  defer(label: string, run: () => Promise<void> | void): void {
    this.steps.push({ label, run });
  }

  /** Runs every step once, even if some fail: one broken step must not leave the others undone. */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of [...this.steps].reverse()) {
        try {
          await step.run();
        } catch (error) {
          process.stderr.write(`cleanup: ${step.label} failed: ${describe(error)}\n`);
        }
      }
    })();
    return this.running;
  }

  /**
   * Ctrl+C or a kill of the bench would otherwise end it without its `finally`, leaving the
   * children running; run the undo steps, then exit with the conventional 128 + signal status.
   */
  onSignals(): void {
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      process.once(signal, () => {
        process.stderr.write(`\n${signal}: stopping\n`);
        void this.run().finally(() => process.exit(code));
      });
    }
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

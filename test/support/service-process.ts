import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * The built service (`dist/src/main.js`, as `npm start` runs it) in a process of its own, so a
 * test can kill it with SIGKILL and start it again on the same settings. Loopback only.
 */
export class ServiceProcess {
  private child: ChildProcess | null = null;
  private output = '';

  constructor(
    private readonly env: Record<string, string>,
    readonly port: number,
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** What the process wrote, for a failing test's message. */
  get log(): string {
    return this.output;
  }

  /** Starts it and resolves once /api/health answers; answers when that was. */
  async start(): Promise<number> {
    const child = spawn(process.execPath, [join(__dirname, '../../dist/src/main.js')], {
      env: { PATH: process.env.PATH ?? '', ...this.env, HOST: '127.0.0.1', PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${this.output}`);
      try {
        if ((await fetch(`${this.baseUrl}/api/health`)).ok) return Date.now();
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the service did not answer within 60 s:\n${this.output}`);
  }

  /** SIGKILL: no shutdown hook runs, as in a crash. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.child = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /** SIGTERM, and waits for the process to end. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.child = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

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
    /** `npm start` rather than node itself: the process tree a newcomer's terminal has. */
    private readonly options: { npmStart?: boolean } = {},
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
    const child = this.spawn();
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

  /** Starts a process that is expected to refuse to start: its exit code once it has ended, within `withinMs`. */
  async startRefused(withinMs = 30_000): Promise<number | null> {
    const child = this.spawn();
    const timer = setTimeout(() => child.kill('SIGKILL'), withinMs);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    clearTimeout(timer);
    this.child = null;
    return code;
  }

  /**
   * Sends `signal` to the whole process group, as a terminal's Ctrl-C or Kubernetes' stop does
   * (npm and the service both get it), and waits for the service's end.
   */
  async signalGroup(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.child = null;
    // 'close', not 'exit': npm may end first, and the service writes its last lines after.
    await new Promise<void>((resolve) => {
      child.once('close', () => resolve());
      process.kill(-child.pid!, signal);
    });
  }

  /** Its own process group (detached), so that signalGroup reaches npm and the service and nothing of the test's. */
  private spawn(): ChildProcess {
    const env = { PATH: process.env.PATH ?? '', ...this.env, HOST: '127.0.0.1', PORT: String(this.port) };
    const child = this.options.npmStart
      ? spawn('npm', ['start', '--silent'], { cwd: join(__dirname, '../..'), env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(process.execPath, [join(__dirname, '../../dist/src/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    return child;
  }

  /** SIGKILL: no shutdown hook runs, as in a crash. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.child = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      process.kill(-child.pid!, 'SIGKILL');
    });
  }

  /** SIGTERM, and waits for the process to end. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.child = null;
    await new Promise<void>((resolve) => {
      child.once('close', () => resolve());
      process.kill(-child.pid!, 'SIGTERM');
    });
  }
}

import { createConnection, createServer, Server, Socket } from 'node:net';

/**
 * A TCP proxy on loopback between the service and a server (PostgreSQL), which a test can cut and
 * restore: `cut()` destroys every live connection and, until `restore()`, destroys each new one as
 * soon as it is accepted (as a dead network path would end it), keeping the port, so the service's
 * settings stay the same throughout.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private isCut = false;
  /** Connections accepted so far, for the test's own checks. */
  connections = 0;

  private readonly server: Server = createServer((client) => {
    if (this.isCut) {
      client.destroy();
      return;
    }
    this.connections += 1;
    const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
    this.track(client);
    this.track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** `url` (postgresql://user@host:port/db) with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const rewritten = new URL(url);
    rewritten.hostname = '127.0.0.1';
    rewritten.port = String(this.port);
    return rewritten.toString();
  }

  /** Ends every live connection at once, and every new one until restore(). */
  cut(): void {
    this.isCut = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.isCut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }
}

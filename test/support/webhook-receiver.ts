import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  at: number;
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the envelope as the test reads it
  json: any;
}

export interface ReceiverAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Never answer: the service must give up after WEBHOOK_TIMEOUT_MS. */
  hang?: boolean;
}

/** A webhook receiver on loopback: records every delivery per path and answers as scripted (200 by default). */
export class WebhookReceiver {
  private readonly deliveries = new Map<string, ReceivedDelivery[]>();
  private readonly scripts = new Map<string, ReceiverAnswer[]>();
  private readonly hanging = new Set<ServerResponse>();

  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => this.handle(request.url ?? '/', request.headers, Buffer.concat(chunks).toString('utf8'), response));
  });

  private constructor() {}

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The next deliveries to `path` get these answers, in order. */
  script(path: string, ...answers: ReceiverAnswer[]): void {
    this.scripts.set(path, [...(this.scripts.get(path) ?? []), ...answers]);
  }

  received(path: string): ReceivedDelivery[] {
    return this.deliveries.get(path) ?? [];
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(path: string, headers: IncomingHttpHeaders, body: string, response: ServerResponse): void {
    let json: unknown = null;
    try {
      json = JSON.parse(body);
    } catch {
      json = null;
    }
    this.deliveries.set(path, [...this.received(path), { at: Date.now(), headers, body, json }]);
    const answer = this.scripts.get(path)?.shift() ?? { status: 200, body: 'ok' };
    if (answer.hang) {
      this.hanging.add(response);
      return;
    }
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body ?? '');
  }
}

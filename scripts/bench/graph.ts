import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Cleanup } from './cleanup';

/** The phone number id and token the bench's service sends with: the default inbox on this fake. */
export const BENCH_PHONE_NUMBER_ID = '106540352242922';
export const BENCH_ACCESS_TOKEN = 'bench-graph-token';

export interface FakeGraph {
  baseUrl: string;
  /** Message sends received since the last `reset`, each with its recipient and arrival time (ms). */
  sends(): { to: string; at: number }[];
  reset(): void;
}

/**
 * The WhatsApp Cloud API as the campaigns section needs it, on loopback in the bench's process:
 * `POST /{phone-number-id}/messages` answers 200 with a fresh `wamid` as the Graph API does, and
 * records who it was for and when it arrived; anything else (the number's health probe) answers
 * 200 with an empty object. It keeps one small record per send: 100,000 sends are a few MB.
 */
export async function startFakeGraph(cleanup: Cleanup): Promise<FakeGraph> {
  let sends: { to: string; at: number }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      response.writeHead(200, { 'content-type': 'application/json' });
      if (request.method !== 'POST' || !request.url?.endsWith('/messages')) {
        response.end('{}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to?: string; recipient?: string };
      const to = body.to ?? body.recipient ?? '';
      sends.push({ to, at });
      response.end(
        JSON.stringify({
          messaging_product: 'whatsapp',
          contacts: [{ input: to, wa_id: to }],
          messages: [{ id: `wamid.${randomBytes(24).toString('base64url')}` }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.defer('stop the fake Graph API', () => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v24.0`,
    sends: () => sends,
    reset: () => (sends = []),
  };
}

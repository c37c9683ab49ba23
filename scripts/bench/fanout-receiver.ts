import { createServer } from 'node:http';
import { listeningPort, serveOnRequest } from './child-server';

/**
 * A child process that plays every webhook receiver of the fan-out bench: answers 200 at once,
 * and records, per delivery, the time from the event's created_at to its arrival. GET /stats
 * answers the figures, DELETE /stats starts them again; a (path, webhook-id) seen twice counts as a duplicate.
 */
serveOnRequest<Record<string, never>>('fan-out receiver', async () => {
  const latencies: number[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  let first = 0;
  let last = 0;
  const server = createServer((request, response) => {
    if (request.method === 'DELETE') {
      // Between the bench's phases: the figures start again, deliveries still seen stay seen.
      latencies.length = 0;
      first = 0;
      last = 0;
      response.writeHead(204);
      response.end();
      return;
    }
    if (request.method === 'GET') {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ received: latencies.length, duplicates, p50: at(0.5), p99: at(0.99), seconds: (last - first) / 1000 }));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const now = Date.now();
      const key = `${request.url}|${String(request.headers['webhook-id'])}`;
      if (seen.has(key)) duplicates += 1;
      seen.add(key);
      const createdAt = Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { created_at: string }).created_at);
      latencies.push(now - createdAt);
      first ||= now;
      last = now;
      response.writeHead(200);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: listeningPort(server) };
});

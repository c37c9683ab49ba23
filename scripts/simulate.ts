/**
 * A customer writes in, without WhatsApp: `npm run simulate -- --from +15551234567 --text "Hi"`,
 * or reacts, quotes, taps a button or list row, shares a location, contacts or media.
 *
 * Posts to a running service's channel webhook exactly what the WhatsApp Cloud API would: the
 * same body shape, a fresh wamid, the current timestamp and, when the app secret is known, the
 * X-Hub-Signature-256 the service checks. Then prints the answer. `--help` lists the options.
 *
 * Environment (read only here): MESSAGING_APP_SECRET (signs the body when --secret is not
 * given), PORT (the default URL's port), MESSAGING_PHONE_NUMBER_ID and
 * MESSAGING_BUSINESS_ACCOUNT_ID (written into the body's metadata when set, as the real
 * channel would; the service does not check them).
 */
import { type CustomerContent, hubSignature, inboundMessageWebhook, newWamid, statusWebhook } from './lib/channel-webhook';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SandboxMediaInfo } from '../src/messaging/sandbox-media';
import { type Invocation, parseInvocation, type SandboxFile, type Simulation, USAGE } from './simulate/args';
import { UsageError } from './simulate/target';

/** A local service answers in milliseconds; a hung one should not hang the terminal. */
const TIMEOUT_MS = 10_000;

async function main(): Promise<number> {
  let invocation: Invocation | 'help';
  try {
    invocation = parseInvocation(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`simulate: ${error.message}\n(npm run simulate -- --help lists the options)\n`);
    return 2;
  }
  if (invocation === 'help') {
    console.log(USAGE);
    return 0;
  }

  const { simulation, url, secret } = invocation;
  const business = {
    phoneNumberId: process.env.MESSAGING_PHONE_NUMBER_ID?.trim() || undefined,
    businessAccountId: process.env.MESSAGING_BUSINESS_ACCOUNT_ID?.trim() || undefined,
  };
  const wamid = simulation.kind === 'message' ? newWamid() : simulation.wamid;
  const body = JSON.stringify(
    simulation.kind === 'message'
      ? inboundMessageWebhook(
          { from: simulation.from, content: simulation.content, replyTo: simulation.replyTo, profileName: simulation.name, wamid },
          business,
        )
      : statusWebhook({ wamid, recipient: simulation.to, status: simulation.value }, business),
  );
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== null) headers['x-hub-signature-256'] = hubSignature(body, secret);

  console.log(describe(simulation, wamid));
  console.log(
    invocation.secretSource
      ? `signed with the secret from ${invocation.secretSource}`
      : 'unsigned (no --secret, no MESSAGING_APP_SECRET): only a service running without MESSAGING_APP_SECRET accepts it',
  );

  if (simulation.kind === 'message' && simulation.file) {
    if (invocation.dryRun) console.log(`would put ${simulation.file.path} in ${simulation.file.directory} as ${simulation.file.mediaId}`);
    else console.log(`put ${await putInSandbox(simulation.file)} for the sandbox channel to serve`);
  }

  if (invocation.dryRun) {
    console.log(`\nPOST ${url.href}`);
    for (const [name, value] of Object.entries(headers)) console.log(`${name}: ${value}`);
    console.log(`\n${body}`);
    return 0;
  }

  console.log(`POST ${url.href}`);
  const started = performance.now();
  let response: Response;
  try {
    // No redirects: a loopback URL answering 3xx must not carry the signed body anywhere else.
    response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    // fetch throws "fetch failed"; the reason (ECONNREFUSED, a timeout, a port fetch refuses) is its cause.
    const { cause } = error as { cause?: { code?: string; message?: string } };
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    process.stderr.write(`simulate: no answer from ${url.origin} (${reason}). Is the service running? (npm start)\n`);
    return 1;
  }
  const text = await response.text();
  const ms = (performance.now() - started).toFixed(0);
  const requestId = response.headers.get('x-request-id');
  console.log(
    `-> ${response.status} ${response.statusText} in ${ms} ms${requestId ? ` (x-request-id ${requestId}, to find its log lines)` : ''}`,
  );
  console.log(text);

  if (response.status !== 200) {
    if (response.status === 401) {
      process.stderr.write(
        `simulate: the service refused the signature. ${secret === null ? 'It checks signatures: pass' : 'Use'} its MESSAGING_APP_SECRET (--secret or the variable).\n`,
      );
    }
    return 1;
  }
  if (simulation.kind === 'message') explainMessage(text, simulation.content);
  else
    console.log(
      `The service answers 200 to a status whether or not a message has this id, as the channel expects; when none has, its log says "${simulation.wamid}, which names no message here".`,
    );
  return 0;
}

/**
 * Puts the file where the sandbox channel keeps "the channel's" media, as WhatsApp holds a
 * customer's media until the service downloads it: the bytes as `<id>` and what the channel
 * reports of them (type, size, sha256) as `<id>.json`. Answers where.
 */
async function putInSandbox(file: SandboxFile): Promise<string> {
  await mkdir(file.directory, { recursive: true });
  const target = join(file.directory, file.mediaId);
  const hash = createHash('sha256');
  await pipeline(
    createReadStream(file.path),
    new PassThrough().on('data', (chunk: Buffer) => hash.update(chunk)),
    createWriteStream(target),
  );
  const info: SandboxMediaInfo = { mime_type: file.mimeType, sha256: hash.digest('hex'), file_size: (await stat(target)).size };
  await writeFile(`${target}.json`, JSON.stringify(info));
  return target;
}

/** One line saying what is sent. */
function describe(simulation: Simulation, wamid: string): string {
  if (simulation.kind === 'status') return `status "${simulation.value}" of ${wamid} sent to +${simulation.to}`;
  const who = `+${simulation.from}${simulation.name ? ` (${simulation.name})` : ''}`;
  const quoting = simulation.replyTo ? `, quoting ${simulation.replyTo}` : '';
  return `message ${wamid} from ${who}${quoting}: ${summary(simulation.content)}`;
}

function summary(content: CustomerContent): string {
  switch (content.type) {
    case 'text':
      return JSON.stringify(content.text);
    case 'reaction':
      return content.emoji === '' ? `removes their reaction to ${content.messageId}` : `reacts ${content.emoji} to ${content.messageId}`;
    case 'button_reply':
    case 'list_reply':
      return `taps the ${content.type === 'button_reply' ? 'button' : 'list row'} ${JSON.stringify(content.title)} (id ${content.id})`;
    case 'location':
      return `location ${content.latitude},${content.longitude}${content.name ? ` (${content.name})` : ''}`;
    case 'contacts':
      return `contacts ${content.cards.map((card) => `${card.name} ${card.phone}`).join(', ')}`;
    case 'media':
      return `${content.voice ? 'voice note' : content.kind} ${content.mediaId} (${content.mimeType})${content.caption ? `: ${JSON.stringify(content.caption)}` : ''}`;
  }
}

/** What a 200 means here: the webhook acknowledges even what it did not store, and a reaction is attached, not stored. */
function explainMessage(text: string, content: CustomerContent): void {
  let answer: { messages?: unknown } = {};
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    return;
  }
  if (content.type === 'reaction') {
    console.log(
      answer.messages === 1
        ? 'stored as a message of type reaction: the service does not know the message reacted to'
        : "attached to the message it reacts to: see that message's reactions in its thread",
    );
    return;
  }
  console.log(
    answer.messages === 1
      ? 'stored: its conversation is now first in GET /api/v1/conversations'
      : 'acknowledged but not stored (the service log says why)',
  );
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`simulate failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);

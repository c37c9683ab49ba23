/**
 * A customer writes in, without WhatsApp: `npm run simulate -- --from +15551234567 --text "Hi"`.
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
import { hubSignature, inboundMediaWebhook, inboundTextWebhook, newWamid, statusWebhook } from './lib/channel-webhook';
import { type Invocation, parseInvocation, USAGE } from './simulate/args';
import { putInSandbox } from './simulate/sandbox-media';
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
  const wamid = simulation.kind === 'status' ? simulation.wamid : newWamid();
  const media = simulation.kind === 'media' ? putInSandbox(simulation.file, simulation.type, simulation.dataDir, !invocation.dryRun) : null;
  const body = JSON.stringify(
    simulation.kind === 'message'
      ? inboundTextWebhook({ from: simulation.from, text: simulation.text, profileName: simulation.name, wamid }, business)
      : simulation.kind === 'media'
        ? inboundMediaWebhook(
            {
              from: simulation.from,
              profileName: simulation.name,
              type: simulation.type,
              mediaId: media!.mediaId,
              mimeType: media!.mimeType,
              sha256: media!.sha256,
              caption: simulation.caption,
              filename: media!.filename,
              wamid,
            },
            business,
          )
        : statusWebhook({ wamid, recipient: simulation.to, status: simulation.value }, business),
  );
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== null) headers['x-hub-signature-256'] = hubSignature(body, secret);

  console.log(
    simulation.kind === 'message'
      ? `message ${wamid} from +${simulation.from}${simulation.name ? ` (${simulation.name})` : ''}: ${JSON.stringify(simulation.text)}`
      : simulation.kind === 'media'
        ? `${simulation.type} ${wamid} from +${simulation.from}: ${media!.filename} (${media!.mimeType}, ${media!.size} bytes) as channel media ${media!.mediaId}` +
          (invocation.dryRun ? '' : `, put in ${media!.path} for the sandbox channel to download`)
        : `status "${simulation.value}" of ${wamid} sent to +${simulation.to}`,
  );
  console.log(
    invocation.secretSource
      ? `signed with the secret from ${invocation.secretSource}`
      : 'unsigned (no --secret, no MESSAGING_APP_SECRET): only a service running without MESSAGING_APP_SECRET accepts it',
  );

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
  if (simulation.kind !== 'status') explainMessage(text);
  return 0;
}

/** What a 200 means here: the webhook acknowledges even what it did not store. */
function explainMessage(text: string): void {
  let answer: { messages?: unknown } = {};
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
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

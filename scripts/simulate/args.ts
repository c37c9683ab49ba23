import { parseArgs } from 'node:util';
import { toE164 } from '../../src/common/phone';
import { STATUS_VALUES, type StatusValue } from '../lib/channel-webhook';
import { isLoopbackHost, UsageError, webhookUrl } from './target';

/** The longest text body WhatsApp delivers. */
const MAX_TEXT_LENGTH = 4096;

export const USAGE = `Sends what the WhatsApp Cloud API would send to a running Team Inbox: a customer's text message,
or a delivery status of a message the inbox sent.

  npm run simulate -- --from +15551234567 --text "Hi" [--name "Maria Lopez"]
  npm run simulate -- --from +15551234567 --image photo.jpg [--text "a caption"] [--data-dir ./data]
  npm run simulate -- --status <wamid> --to +15551234567 --value delivered|read|failed|sent

Options:
  --from <phone>     the customer writing in, international format (+15551234567 or 15551234567)
  --text <text>      the message (1 to ${MAX_TEXT_LENGTH} characters)
  --name <name>      the customer's WhatsApp profile name (default: none, the inbox shows the phone)
  --image <file>     send a file as a customer's media instead of a text (likewise --audio, --video,
                     --document, --sticker); --text becomes its caption. For a service on the sandbox
                     channel (no MESSAGING_ACCESS_TOKEN): the file is put where the sandbox "channel"
                     keeps media, DATA_DIR/sandbox-media/, for the service to download from
  --data-dir <dir>   the service's DATA_DIR (default: $DATA_DIR, else ./data)
  --status <wamid>   the channel id of an outbound message (the service logs "... as wamid.…" when it sends)
  --to <phone>       the customer that message went to
  --value <status>   ${STATUS_VALUES.join(', ')}
  --url <url>        the service (default http://127.0.0.1:$PORT, PORT defaulting to 3000)
  --secret <secret>  the service's MESSAGING_APP_SECRET, to sign the body (default: $MESSAGING_APP_SECRET;
                     prefer the variable: a secret on the command line lands in the shell history)
  --allow-remote     allow a --url that is not this machine
  --dry-run          print the body and headers instead of sending them
  --help             this text

Exit status: 0 when the service answered 200, 1 when it answered anything else or could not be
reached, 2 for a mistake on the command line.`;

export const MEDIA_OPTIONS = ['image', 'audio', 'video', 'document', 'sticker'] as const;
export type MediaOption = (typeof MEDIA_OPTIONS)[number];

export type Simulation =
  | { kind: 'message'; from: string; text: string; name: string | null }
  | { kind: 'media'; from: string; type: MediaOption; file: string; caption: string | null; name: string | null; dataDir: string }
  | { kind: 'status'; wamid: string; to: string; value: StatusValue };

export interface Invocation {
  simulation: Simulation;
  url: URL;
  /** Null: send unsigned (accepted only by a service without MESSAGING_APP_SECRET). */
  secret: string | null;
  secretSource: '--secret' | 'MESSAGING_APP_SECRET' | null;
  dryRun: boolean;
}

/** The validated command line, `'help'` for --help, or a UsageError naming what is wrong. */
export function parseInvocation(argv: string[], env: NodeJS.ProcessEnv): Invocation | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        from: { type: 'string' },
        text: { type: 'string' },
        name: { type: 'string' },
        status: { type: 'string' },
        to: { type: 'string' },
        value: { type: 'string' },
        url: { type: 'string' },
        secret: { type: 'string' },
        image: { type: 'string' },
        audio: { type: 'string' },
        video: { type: 'string' },
        document: { type: 'string' },
        sticker: { type: 'string' },
        'data-dir': { type: 'string' },
        'allow-remote': { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    // parseArgs says "Unknown option '--form'" or "Option '--text <value>' argument missing".
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const option = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);

  const media = MEDIA_OPTIONS.filter((name) => option(name) !== undefined);
  const simulation =
    option('status') !== undefined
      ? statusSimulation(option)
      : media.length > 0
        ? mediaSimulation(option, media, env)
        : messageSimulation(option);

  const url = webhookUrl(option('url') ?? `http://127.0.0.1:${env.PORT?.trim() || 3000}`);
  // The messages this forges look real to the inbox: agents are notified and registered webhooks
  // fire. Pointed by mistake at a shared or production instance (with its real app secret), they
  // would reach real people; and a signed body is a secret-derived value sent over the network.
  // So anything but this machine takes an explicit --allow-remote.
  if (!isLoopbackHost(url.hostname) && values['allow-remote'] !== true) {
    throw new UsageError(
      `--url: ${url.host} is not this machine; simulated messages go to loopback only (127.0.0.1, ::1, localhost) unless --allow-remote is given`,
    );
  }

  const given = option('secret');
  if (given !== undefined && given.trim() === '') throw new UsageError('--secret: empty; omit it to send unsigned');
  const fromEnv = env.MESSAGING_APP_SECRET?.trim() || undefined;
  return {
    simulation,
    url,
    secret: given ?? fromEnv ?? null,
    secretSource: given !== undefined ? '--secret' : fromEnv !== undefined ? 'MESSAGING_APP_SECRET' : null,
    dryRun: values['dry-run'] === true,
  };
}

function messageSimulation(option: (name: string) => string | undefined): Simulation {
  for (const name of ['to', 'value']) {
    if (option(name) !== undefined) throw new UsageError(`--${name} goes with --status; a message takes --from and --text`);
  }
  const from = option('from');
  const text = option('text');
  if (from === undefined || text === undefined) {
    throw new UsageError(`missing ${[from === undefined && '--from', text === undefined && '--text'].filter(Boolean).join(' and ')}`);
  }
  if (text.trim() === '') throw new UsageError('--text: empty; WhatsApp does not deliver empty messages');
  if (text.length > MAX_TEXT_LENGTH)
    throw new UsageError(`--text: ${text.length} characters; WhatsApp text messages have at most ${MAX_TEXT_LENGTH}`);
  const name = option('name');
  if (name !== undefined && name.trim() === '') throw new UsageError('--name: empty; omit it for a customer without a profile name');
  return { kind: 'message', from: channelPhone('--from', from), text, name: name?.trim() ?? null };
}

function mediaSimulation(option: (name: string) => string | undefined, media: MediaOption[], env: NodeJS.ProcessEnv): Simulation {
  if (media.length > 1) throw new UsageError(`--${media.join(' and --')}: one media per message`);
  for (const name of ['to', 'value']) {
    if (option(name) !== undefined) throw new UsageError(`--${name} goes with --status; a media message takes --from and --${media[0]}`);
  }
  const from = option('from');
  if (from === undefined) throw new UsageError('missing --from');
  const file = option(media[0])!;
  if (file.trim() === '') throw new UsageError(`--${media[0]}: empty; give the path of a file`);
  const caption = option('text');
  const name = option('name');
  if (name !== undefined && name.trim() === '') throw new UsageError('--name: empty; omit it for a customer without a profile name');
  return {
    kind: 'media',
    from: channelPhone('--from', from),
    type: media[0],
    file,
    caption: caption?.trim() ? caption : null,
    name: name?.trim() ?? null,
    dataDir: option('data-dir') ?? (env.DATA_DIR?.trim() || './data'),
  };
}

function statusSimulation(option: (name: string) => string | undefined): Simulation {
  for (const name of ['from', 'text', 'name', ...MEDIA_OPTIONS]) {
    if (option(name) !== undefined) throw new UsageError(`--${name} goes with a message; a status takes --status, --to and --value`);
  }
  const wamid = option('status')!.trim();
  if (wamid.startsWith('msg_')) {
    throw new UsageError(
      `--status takes the channel's id of the message (wamid.…, in the service log when it sends), not the API id ${wamid}`,
    );
  }
  if (!/^wamid\.\S+$/.test(wamid)) throw new UsageError(`--status: "${wamid}" is not a channel message id (wamid.…)`);
  const to = option('to');
  const value = option('value');
  if (to === undefined || value === undefined) {
    throw new UsageError(`missing ${[to === undefined && '--to', value === undefined && '--value'].filter(Boolean).join(' and ')}`);
  }
  if (!STATUS_VALUES.includes(value as StatusValue)) throw new UsageError(`--value: "${value}" is not one of ${STATUS_VALUES.join(', ')}`);
  return { kind: 'status', wamid, to: channelPhone('--to', to), value: value as StatusValue };
}

/**
 * The phone as the channel writes it (digits, no "+"), checked with the service's own rule: a
 * number the service cannot read is acknowledged and dropped, which would look like a success.
 */
function channelPhone(option: string, given: string): string {
  const e164 = toE164(given);
  if (e164 === null) throw new UsageError(`${option}: "${given}" is not a phone number in international format (e.g. +15551234567)`);
  return e164.slice(1);
}

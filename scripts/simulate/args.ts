import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SANDBOX_MEDIA_DIRECTORY } from '../../src/messaging/sandbox-media';
import { toE164 } from '../../src/common/phone';
import { type CustomerContent, MEDIA_KINDS, type MediaKind, STATUS_VALUES, type StatusValue } from '../lib/channel-webhook';
import { isLoopbackHost, UsageError, webhookUrl } from './target';

/** The longest text body WhatsApp delivers. */
const MAX_TEXT_LENGTH = 4096;

export const USAGE = `Sends what the WhatsApp Cloud API would send to a running Team Inbox: a customer's message of any
kind, or a delivery status of a message the inbox sent.

  npm run simulate -- --from +15551234567 --text "Hi" [--name "Maria Lopez"]
  npm run simulate -- --from +15551234567 --text "That one" --reply-to <wamid>
  npm run simulate -- --from +15551234567 --react <wamid> --emoji 👍      (--emoji "" takes it back)
  npm run simulate -- --from +15551234567 --button-reply "Yes, deliver" [--reply-id yes] [--reply-to <wamid>]
  npm run simulate -- --from +15551234567 --list-reply "Express shipping" [--reply-id express]
  npm run simulate -- --from +15551234567 --location 37.4833,-122.1490 [--location-name "Head office"] [--location-address "1 Main St"]
  npm run simulate -- --from +15551234567 --contact "Ana Souza=+5511999999999" [--contact "…=…"]
  npm run simulate -- --from +15551234567 --media image:1003383421387256 [--caption "My receipt"]
  npm run simulate -- --from +15551234567 --media image --file ./receipt.jpg [--caption "My receipt"] [--data-dir ./data]
  npm run simulate -- --status <wamid> --to +15551234567 --value delivered|read|played|failed|sent

A message is one of --text, --react, --button-reply, --list-reply, --location, --contact or --media.

Options:
  --from <phone>     the customer writing in, international format (+15551234567 or 15551234567)
  --text <text>      a text message (1 to ${MAX_TEXT_LENGTH} characters)
  --react <wamid>    a reaction to that message (the customer's own, or the inbox's: the service logs "... as wamid.…")
  --emoji <emoji>    the reaction's emoji; "" removes the customer's reaction
  --button-reply <title>, --list-reply <title>
                     the customer taps a reply button or a list row of an interactive message
  --reply-id <id>    the id of that button or row (default: the title in lower case)
  --location <latitude>,<longitude>
                     a location pin; with --location-name and --location-address, a place
  --contact <name>=<phone>
                     a contact card; repeat for several
  --media <kind>:<media-id>
                     ${MEDIA_KINDS.join(', ')} by the channel's media id (downloading it is the service's business);
                     with --caption, --filename (document), --mime-type, --voice (audio: a voice note)
  --media <kind> --file <path>
                     a file as the customer's media, for a service on the sandbox channel (no
                     MESSAGING_ACCESS_TOKEN): the file is put where the sandbox keeps the channel's
                     media, <data-dir>/sandbox-media/, under a new media id, so the service downloads,
                     checks and stores it as it would from WhatsApp. The type is read from the file's
                     extension unless --mime-type says it; a document is named after the file
  --data-dir <dir>   the service's DATA_DIR (default: $DATA_DIR, else ./data)
  --reply-to <wamid> the message quoted (the channel's context), with any kind but --react
  --name <name>      the customer's WhatsApp profile name (default: none, the inbox shows the phone)
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

/** Default MIME types of media sent by id, as the channel reports them. */
const MEDIA_MIME_TYPES: Record<MediaKind, string> = {
  image: 'image/jpeg',
  video: 'video/mp4',
  audio: 'audio/ogg; codecs=opus',
  document: 'application/pdf',
  sticker: 'image/webp',
};

/** The options that each make a message of one kind: exactly one is given. */
const KIND_OPTIONS = ['text', 'react', 'button-reply', 'list-reply', 'location', 'contact', 'media'] as const;
/** Options that only qualify one kind. */
const QUALIFIERS: Record<string, (typeof KIND_OPTIONS)[number][]> = {
  emoji: ['react'],
  'reply-id': ['button-reply', 'list-reply'],
  'location-name': ['location'],
  'location-address': ['location'],
  caption: ['media'],
  filename: ['media'],
  'mime-type': ['media'],
  voice: ['media'],
  file: ['media'],
  'data-dir': ['media'],
};

/** The type WhatsApp would report for a file, by its extension. */
const MIME_TYPES_BY_EXTENSION: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.mp4': 'video/mp4',
  '.3gp': 'video/3gpp',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
  '.amr': 'audio/amr',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** A file to put where the sandbox channel keeps media, as `mediaId`, before the message is sent. */
export interface SandboxFile {
  path: string;
  mediaId: string;
  mimeType: string;
  /** `<data-dir>/sandbox-media`. */
  directory: string;
}

export type Simulation =
  | { kind: 'message'; from: string; content: CustomerContent; replyTo: string | null; name: string | null; file: SandboxFile | null }
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
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        from: { type: 'string' },
        text: { type: 'string' },
        react: { type: 'string' },
        emoji: { type: 'string' },
        'button-reply': { type: 'string' },
        'list-reply': { type: 'string' },
        'reply-id': { type: 'string' },
        location: { type: 'string' },
        'location-name': { type: 'string' },
        'location-address': { type: 'string' },
        contact: { type: 'string', multiple: true },
        media: { type: 'string' },
        caption: { type: 'string' },
        filename: { type: 'string' },
        'mime-type': { type: 'string' },
        voice: { type: 'boolean' },
        file: { type: 'string' },
        'data-dir': { type: 'string' },
        'reply-to': { type: 'string' },
        name: { type: 'string' },
        status: { type: 'string' },
        to: { type: 'string' },
        value: { type: 'string' },
        url: { type: 'string' },
        secret: { type: 'string' },
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
  const given = (name: string) => values[name] !== undefined;

  const simulation =
    option('status') !== undefined
      ? statusSimulation(option, given)
      : messageSimulation(option, given, (values.contact as string[]) ?? [], env.DATA_DIR?.trim() || './data');

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

  const secret = option('secret');
  if (secret !== undefined && secret.trim() === '') throw new UsageError('--secret: empty; omit it to send unsigned');
  const fromEnv = env.MESSAGING_APP_SECRET?.trim() || undefined;
  return {
    simulation,
    url,
    secret: secret ?? fromEnv ?? null,
    secretSource: secret !== undefined ? '--secret' : fromEnv !== undefined ? 'MESSAGING_APP_SECRET' : null,
    dryRun: values['dry-run'] === true,
  };
}

function messageSimulation(
  option: (name: string) => string | undefined,
  given: (name: string) => boolean,
  contacts: string[],
  defaultDataDir: string,
): Simulation {
  for (const name of ['to', 'value']) {
    if (given(name)) throw new UsageError(`--${name} goes with --status; a message takes --from and one of --${KIND_OPTIONS.join(', --')}`);
  }
  const kinds = KIND_OPTIONS.filter((name) => given(name));
  const from = option('from');
  if (from === undefined || kinds.length === 0) {
    throw new UsageError(
      `missing ${[from === undefined && '--from', kinds.length === 0 && `one of --${KIND_OPTIONS.join(', --')}`].filter(Boolean).join(' and ')}`,
    );
  }
  if (kinds.length > 1) throw new UsageError(`--${kinds.join(' and --')}: one message is one kind; give only one of them`);
  const kind = kinds[0];
  for (const [qualifier, kindsItGoesWith] of Object.entries(QUALIFIERS)) {
    if (given(qualifier) && !kindsItGoesWith.includes(kind))
      throw new UsageError(`--${qualifier} goes with --${kindsItGoesWith.join(' or --')}`);
  }
  const replyTo = option('reply-to');
  if (replyTo !== undefined && kind === 'react')
    throw new UsageError('--reply-to: a reaction names its message with --react, and quotes nothing');
  const name = option('name');
  if (name !== undefined && name.trim() === '') throw new UsageError('--name: empty; omit it for a customer without a profile name');
  const file = kind === 'media' && given('file') ? sandboxFileOf(option, defaultDataDir) : null;
  if (given('data-dir') && !file) throw new UsageError('--data-dir goes with --media <kind> --file <path>');
  return {
    kind: 'message',
    from: channelPhone('--from', from),
    content: contentOf(kind, option, given, contacts, file),
    replyTo: replyTo === undefined ? null : channelMessageId('--reply-to', replyTo),
    name: name?.trim() ?? null,
    file,
  };
}

/** The file of `--media <kind> --file <path>`, under a new sandbox media id. */
function sandboxFileOf(option: (name: string) => string | undefined, defaultDataDir: string): SandboxFile {
  const path = resolve(option('file')!);
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    // Said below, as for a directory.
  }
  if (!isFile) throw new UsageError(`--file: cannot read a file at ${path}`);
  return {
    path,
    mediaId: `sim-${randomBytes(12).toString('hex')}`,
    mimeType: option('mime-type')?.trim() || MIME_TYPES_BY_EXTENSION[extname(path).toLowerCase()] || 'application/octet-stream',
    directory: resolve(option('data-dir') ?? defaultDataDir, SANDBOX_MEDIA_DIRECTORY),
  };
}

/** The message of the one kind option given, checked as the channel would send it. */
function contentOf(
  kind: (typeof KIND_OPTIONS)[number],
  option: (name: string) => string | undefined,
  given: (name: string) => boolean,
  contacts: string[],
  file: SandboxFile | null,
): CustomerContent {
  switch (kind) {
    case 'text': {
      const text = option('text')!;
      if (text.trim() === '') throw new UsageError('--text: empty; WhatsApp does not deliver empty messages');
      if (text.length > MAX_TEXT_LENGTH)
        throw new UsageError(`--text: ${text.length} characters; WhatsApp text messages have at most ${MAX_TEXT_LENGTH}`);
      return { type: 'text', text };
    }
    case 'react': {
      const emoji = option('emoji');
      if (emoji === undefined) throw new UsageError('--react needs --emoji (an emoji, or "" to take the reaction back)');
      return { type: 'reaction', messageId: channelMessageId('--react', option('react')!), emoji };
    }
    case 'button-reply':
    case 'list-reply': {
      const title = option(kind)!.trim();
      if (title === '') throw new UsageError(`--${kind}: empty; give the title the customer tapped`);
      const id = option('reply-id')?.trim() || title.toLowerCase().replace(/\s+/g, '_');
      return { type: kind === 'button-reply' ? 'button_reply' : 'list_reply', id, title };
    }
    case 'location': {
      const match = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(option('location')!);
      const latitude = Number(match?.[1]);
      const longitude = Number(match?.[2]);
      if (!match || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
        throw new UsageError(`--location: "${option('location')}" is not <latitude>,<longitude> (e.g. 37.4833,-122.1490)`);
      }
      const place = { name: option('location-name')?.trim(), address: option('location-address')?.trim() };
      return {
        type: 'location',
        latitude,
        longitude,
        ...(place.name ? { name: place.name } : {}),
        ...(place.address ? { address: place.address } : {}),
      };
    }
    case 'contact':
      return {
        type: 'contacts',
        cards: contacts.map((card) => {
          const at = card.lastIndexOf('=');
          const name = card.slice(0, Math.max(at, 0)).trim();
          if (at < 0 || name === '') throw new UsageError(`--contact: "${card}" is not <name>=<phone> (e.g. "Ana Souza=+5511999999999")`);
          return { name, phone: `+${channelPhone('--contact', card.slice(at + 1))}` };
        }),
      };
    case 'media': {
      const [mediaKind, idGiven] = option('media')!.split(/:(.*)/s, 2);
      if (file && idGiven !== undefined) throw new UsageError('--media: with --file, give the kind only (--media image --file photo.jpg)');
      const mediaId = file ? file.mediaId : idGiven;
      if (!MEDIA_KINDS.includes(mediaKind as MediaKind) || !mediaId?.trim()) {
        throw new UsageError(
          `--media: "${option('media')}" is not <kind>:<media-id>, or <kind> with --file, with a kind of ${MEDIA_KINDS.join(', ')}`,
        );
      }
      const kindOf = mediaKind as MediaKind;
      if (given('voice') && kindOf !== 'audio') throw new UsageError('--voice goes with --media audio:<media-id>');
      if (given('filename') && kindOf !== 'document') throw new UsageError('--filename goes with --media document:<media-id>');
      if (given('caption') && (kindOf === 'audio' || kindOf === 'sticker'))
        throw new UsageError(`--caption: the channel carries none on ${kindOf}`);
      return {
        type: 'media',
        kind: kindOf,
        mediaId: mediaId.trim(),
        mimeType: file?.mimeType ?? (option('mime-type')?.trim() || MEDIA_MIME_TYPES[kindOf]),
        ...(option('caption') !== undefined ? { caption: option('caption') } : {}),
        ...(option('filename') !== undefined
          ? { filename: option('filename') }
          : file && kindOf === 'document'
            ? { filename: basename(file.path) }
            : {}),
        ...(given('voice') ? { voice: true } : {}),
      };
    }
  }
}

/** A channel message id as the channel writes them (`wamid.…`), not the API's `msg_…`. */
function channelMessageId(option: string, given: string): string {
  const wamid = given.trim();
  if (wamid.startsWith('msg_')) {
    throw new UsageError(`${option} takes the channel's id of the message (wamid.…, in the service log), not the API id ${wamid}`);
  }
  if (/…|\.\.\./.test(wamid)) {
    throw new UsageError(
      `${option}: "${wamid}" is the README's placeholder: give the whole id the service logged ("... as wamid.sandbox.<hex>")`,
    );
  }
  if (!/^wamid\.\S+$/.test(wamid)) throw new UsageError(`${option}: "${wamid}" is not a channel message id (wamid.…)`);
  return wamid;
}

function statusSimulation(option: (name: string) => string | undefined, given: (name: string) => boolean): Simulation {
  for (const name of ['from', 'name', 'reply-to', ...KIND_OPTIONS, ...Object.keys(QUALIFIERS)]) {
    if (given(name)) throw new UsageError(`--${name} goes with a message; a status takes --status, --to and --value`);
  }
  const wamid = channelMessageId('--status', option('status')!);
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

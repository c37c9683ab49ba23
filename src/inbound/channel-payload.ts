import { toE164 } from '../common/phone';
import { toStorable } from '../common/storable-text';
import type { ChannelStatus, InboundMessage } from '../conversations/messages.service';
import type { MediaKind } from '../media/media.entity';

/** One customer message out of a channel webhook, with who sent it. */
export interface ParsedMessage {
  phone: string;
  profileName: string | null;
  message: InboundMessage;
}

export interface ParsedWebhook {
  messages: ParsedMessage[];
  statuses: ChannelStatus[];
  /** What was acknowledged without being stored, one line each, for the log. */
  ignored: string[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asString = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Message types whose payload sits under the key named by the type, with a caption as their text. */
const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);

/**
 * Reads a WhatsApp Cloud API webhook body (`entry[].changes[].value` with `contacts`,
 * `messages` and `statuses`). Never throws: what it does not know is listed in `ignored`.
 * Every string it answers can be stored: characters PostgreSQL refuses (NUL, unpaired
 * surrogates) are replaced by U+FFFD, since refusing the body would only make the channel
 * redeliver it for days, and with it every other message it holds.
 */
export function parseChannelWebhook(received: unknown, receivedAt = new Date()): ParsedWebhook {
  const body = toStorable(received);
  const parsed: ParsedWebhook = { messages: [], statuses: [], ignored: [] };
  if (!isObject(body) || !Array.isArray(body.entry)) {
    parsed.ignored.push('a body without an entry array');
    return parsed;
  }
  for (const entry of body.entry) {
    for (const change of asArray(isObject(entry) ? entry.changes : undefined)) {
      if (!isObject(change) || !isObject(change.value)) {
        parsed.ignored.push('a change without a value');
        continue;
      }
      if (change.field !== undefined && change.field !== 'messages') {
        parsed.ignored.push(`a change of field ${JSON.stringify(change.field).slice(0, 200)}`);
        continue;
      }
      const value = change.value;
      const profileNames = new Map<string, string>();
      for (const contact of asArray(value.contacts)) {
        const waId = isObject(contact) ? asString(contact.wa_id) : null;
        const name = isObject(contact) && isObject(contact.profile) ? asString(contact.profile.name) : null;
        if (waId && name) profileNames.set(waId, name);
      }
      for (const message of asArray(value.messages)) readMessage(message, profileNames, receivedAt, parsed);
      for (const status of asArray(value.statuses)) readStatus(status, receivedAt, parsed);
    }
  }
  return parsed;
}

function readMessage(message: unknown, profileNames: Map<string, string>, receivedAt: Date, parsed: ParsedWebhook): void {
  const from = isObject(message) ? asString(message.from) : null;
  const id = isObject(message) ? asString(message.id) : null;
  const phone = from ? toE164(from) : null;
  if (!isObject(message) || !id || !phone) {
    parsed.ignored.push(`a message without a usable id or sender (${JSON.stringify(message).slice(0, 200)})`);
    return;
  }
  const type = asString(message.type) ?? 'unknown';
  parsed.messages.push({
    phone,
    profileName: profileNames.get(from!) ?? null,
    message: {
      channelMessageId: id,
      type,
      ...textAndContent(type, message),
      sentAt: timestampOf(message.timestamp) ?? receivedAt,
      media: mediaOf(type, message),
    },
  });
}

/** A media message's media, to download by its channel id; null for other types, or a payload without an id. */
function mediaOf(type: string, message: Json): InboundMessage['media'] {
  const payload = MEDIA_TYPES.has(type) && isObject(message[type]) ? (message[type] as Json) : null;
  const channelMediaId = payload ? asString(payload.id) : null;
  if (!payload || !channelMediaId) return null;
  return {
    kind: type as MediaKind,
    mimeType: asString(payload.mime_type) ?? 'application/octet-stream',
    channelMediaId,
    channelSha256: asString(payload.sha256),
    filename: asString(payload.filename),
  };
}

/** The stored text (where the type has one) and the channel payload of the type. */
function textAndContent(type: string, message: Json): { text: string | null; content: Json | null } {
  const payload = isObject(message[type]) ? (message[type] as Json) : null;
  if (type === 'text')
    return { text: payload ? asString(payload.body) : null, content: isObject(message.context) ? { context: message.context } : null };
  if (MEDIA_TYPES.has(type) && payload) return { text: asString(payload.caption), content: payload };
  if (type === 'location' && payload) return { text: asString(payload.name) ?? asString(payload.address), content: payload };
  if (type === 'contacts') {
    const first = asArray(message.contacts)[0];
    const name = isObject(first) && isObject(first.name) ? asString(first.name.formatted_name) : null;
    return { text: name, content: { contacts: asArray(message.contacts) } };
  }
  if (type === 'interactive' && payload) {
    const reply = [payload.button_reply, payload.list_reply].find(isObject);
    const flow = isObject(payload.nfm_reply) ? asString(payload.nfm_reply.body) : null;
    return { text: (reply ? asString(reply.title) : null) ?? flow, content: payload };
  }
  if (type === 'button' && payload) return { text: asString(payload.text), content: payload };
  if (type === 'reaction' && payload) return { text: asString(payload.emoji), content: payload };
  // Unknown or unsupported types keep the whole message, so nothing the channel said is lost.
  const { from, id, timestamp, ...rest } = message;
  return { text: null, content: rest };
}

function readStatus(status: unknown, receivedAt: Date, parsed: ParsedWebhook): void {
  const id = isObject(status) ? asString(status.id) : null;
  const value = isObject(status) ? asString(status.status) : null;
  if (!isObject(status) || !id || (value !== 'sent' && value !== 'delivered' && value !== 'read' && value !== 'failed')) {
    parsed.ignored.push(`a status ${JSON.stringify(value)} of ${JSON.stringify(id)}`);
    return;
  }
  parsed.statuses.push({
    channelMessageId: id,
    status: value,
    error: value === 'failed' ? errorOf(status.errors) : null,
    at: timestampOf(status.timestamp) ?? receivedAt,
  });
}

/** The channel's reason for a failed status: `(#131047) Re-engagement message: <details>`. */
function errorOf(errors: unknown): string {
  const error = asArray(errors)[0];
  if (!isObject(error)) return 'The channel reported the message as failed';
  const details = isObject(error.error_data) ? asString(error.error_data.details) : null;
  const title = asString(error.title) ?? asString(error.message) ?? 'failed';
  return `${typeof error.code === 'number' ? `(#${error.code}) ` : ''}${title}${details ? `: ${details}` : ''}`;
}

/** The channel's unix-seconds timestamp (a string) as a Date; null when absent, malformed or beyond what a Date holds. */
function timestampOf(value: unknown): Date | null {
  const seconds = typeof value === 'string' || typeof value === 'number' ? Number(value) : NaN;
  const date = new Date(seconds * 1000);
  return seconds > 0 && !Number.isNaN(date.getTime()) ? date : null;
}

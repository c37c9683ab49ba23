import { toE164 } from '../common/phone';
import { nestsDeeperThan } from '../common/json-depth';
import { toStorable } from '../common/storable-text';
import { MAX_USERNAME_LENGTH, WA_USER_ID_PATTERN, type ChannelCustomer } from '../contacts/channel-customer';
import type { ChannelStatus, InboundMessage } from '../conversations/messages.service';
import type { MediaKind } from '../media/media.entity';
import type { TemplateChange, TemplateReference } from '../templates/template.entity';

/** One customer message out of a channel webhook, with who sent it. */
export interface ParsedMessage {
  customer: ChannelCustomer;
  message: InboundMessage;
  /** The business number it was written to (`value.metadata.phone_number_id`); null when the change did not say. */
  phoneNumberId: string | null;
}

export interface ParsedWebhook {
  messages: ParsedMessage[];
  /** Every business number the body's `messages` changes name (metadata.phone_number_id), for routing them to inboxes. */
  phoneNumberIds: string[];
  statuses: ChannelStatus[];
  /** The channel's errors about a whole change (`value.errors`), not about one message. */
  errors: ChannelChangeError[];
  /** Changes of the business account's message templates (status, category). */
  templates: TemplateChange[];
  /** What was acknowledged without being stored, one line each, for the log. */
  ignored: string[];
}

/** One entry of a change's `errors`: `{code, title, message, error_data: {details}}`, kept whole in `error`. */
export interface ChannelChangeError {
  code: number | null;
  title: string | null;
  details: string | null;
  error: Json;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asString = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const asNumber = (value: unknown): number | null => {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(number) ? number : null;
};

/** Message types whose payload sits under the key named by the type, with a caption as their text. */
const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);

/** The fields of a change about a business account's templates, applied to the catalogue of its entry's account. */
const TEMPLATE_FIELDS: ReadonlySet<string> = new Set(['message_template_status_update', 'template_category_update'] as const);
type TemplateField = 'message_template_status_update' | 'template_category_update';

/**
 * What each change of a body is about, so its signature is checked with the right app secret: the
 * business number of a messages change (`value.metadata.phone_number_id`; null when it names none,
 * which goes to the default inbox), or the business account of a template change's entry
 * (`entry.id`), whose catalogue it changes. Read before the body is trusted, so it only looks.
 */
export interface ChangeSource {
  phoneNumberId: string | null;
  businessAccountId: string | null;
}

export function changeSourcesOf(body: unknown): ChangeSource[] {
  const sources = new Map<string, ChangeSource>();
  for (const entry of isObject(body) ? asArray(body.entry) : []) {
    for (const change of asArray(isObject(entry) ? entry.changes : undefined)) {
      const value = isObject(change) ? change.value : undefined;
      // A template change is applied to its entry's business account whatever else it names, so that account's key checks it.
      const source =
        isObject(change) && TEMPLATE_FIELDS.has(change.field as string)
          ? { phoneNumberId: null, businessAccountId: isObject(entry) ? idOf(entry.id) : null }
          : {
              phoneNumberId: isObject(value) && isObject(value.metadata) ? asString(value.metadata.phone_number_id) : null,
              businessAccountId: null,
            };
      sources.set(JSON.stringify(source), source);
    }
  }
  return sources.size === 0 ? [{ phoneNumberId: null, businessAccountId: null }] : [...sources.values()];
}

/**
 * Reads a WhatsApp Cloud API webhook body: `entry[].changes[]` of field `messages` (a `value` with
 * `contacts`, `messages` and `statuses`), `message_template_status_update` and
 * `template_category_update`. Never throws: what it does not know is listed in `ignored`.
 * Every string it answers can be stored: characters PostgreSQL refuses (NUL, unpaired
 * surrogates) are replaced by U+FFFD, since refusing the body would only make the channel
 * redeliver it for days, and with it every other message it holds.
 */
export function parseChannelWebhook(received: unknown, receivedAt = new Date()): ParsedWebhook {
  const body = toStorable(received);
  const parsed: ParsedWebhook = { messages: [], phoneNumberIds: [], statuses: [], errors: [], templates: [], ignored: [] };
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
      if (TEMPLATE_FIELDS.has(change.field as string)) {
        readTemplateChange(change.field as TemplateField, change.value, isObject(entry) ? idOf(entry.id) : null, parsed);
        continue;
      }
      if (change.field !== undefined && change.field !== 'messages') {
        parsed.ignored.push(`a change of field ${JSON.stringify(change.field).slice(0, 200)}`);
        continue;
      }
      const value = change.value;
      const profiles = readProfiles(value.contacts);
      const phoneNumberId = isObject(value.metadata) ? asString(value.metadata.phone_number_id) : null;
      if (phoneNumberId !== null && !parsed.phoneNumberIds.includes(phoneNumberId)) parsed.phoneNumberIds.push(phoneNumberId);
      for (const message of asArray(value.messages)) readMessage(message, profiles, phoneNumberId, receivedAt, parsed);
      for (const status of asArray(value.statuses)) readStatus(status, receivedAt, parsed);
      for (const error of asArray(value.errors)) readChangeError(error, parsed);
    }
  }
  return parsed;
}

/** A sender as `contacts[]` describes them: `{wa_id?, user_id?, profile: {name, username?}}`. */
interface Profile {
  phone: string | null;
  userId: string | null;
  name: string | null;
  username: string | null;
}

/** The change's `contacts`, each found by its phone (`wa_id`) and by its user id. */
function readProfiles(contacts: unknown): Map<string, Profile> {
  const profiles = new Map<string, Profile>();
  for (const contact of asArray(contacts)) {
    if (!isObject(contact)) continue;
    const profile = isObject(contact.profile) ? contact.profile : {};
    const read: Profile = {
      phone: asString(contact.wa_id),
      userId: userIdOf(contact.user_id),
      name: asString(profile.name),
      username: asString(profile.username)?.slice(0, MAX_USERNAME_LENGTH) ?? null,
    };
    if (read.phone) profiles.set(`phone:${read.phone}`, read);
    if (read.userId) profiles.set(`user:${read.userId}`, read);
  }
  return profiles;
}

/**
 * Who sent a message: `from` (the phone, absent for a customer who shares only a username) and
 * `from_user_id`, completed by the change's `contacts` entry of either; null when neither is usable.
 */
function senderOf(message: Json, profiles: Map<string, Profile>): ChannelCustomer | null {
  const from = asString(message.from);
  const fromUserId = userIdOf(message.from_user_id);
  const profile = (from ? profiles.get(`phone:${from}`) : undefined) ?? (fromUserId ? profiles.get(`user:${fromUserId}`) : undefined);
  const phone = from ? toE164(from) : null;
  const userId = fromUserId ?? profile?.userId ?? null;
  if (phone === null && userId === null) return null;
  return { phone, userId, username: profile?.username ?? null, profileName: profile?.name ?? null };
}

/** A business-scoped user id as the channel writes them; anything else is no id (a message with neither id nor phone is ignored, and logged). */
function userIdOf(value: unknown): string | null {
  const id = asString(value);
  return id !== null && WA_USER_ID_PATTERN.test(id) ? id : null;
}

function readMessage(
  message: unknown,
  profiles: Map<string, Profile>,
  phoneNumberId: string | null,
  receivedAt: Date,
  parsed: ParsedWebhook,
): void {
  const id = isObject(message) ? asString(message.id) : null;
  const customer = isObject(message) ? senderOf(message, profiles) : null;
  if (!isObject(message) || !id || !customer) {
    parsed.ignored.push(`a message without a usable id or sender (${JSON.stringify(message).slice(0, 200)})`);
    return;
  }
  const type = asString(message.type) ?? 'unknown';
  const context = isObject(message.context) ? message.context : null;
  parsed.messages.push({
    customer,
    phoneNumberId,
    message: {
      channelMessageId: id,
      type,
      ...textAndContent(type, message, context),
      sentAt: timestampOf(message.timestamp, receivedAt),
      quotedChannelMessageId: context ? asString(context.id) : null,
      referral: isObject(message.referral) ? message.referral : null,
      ...reactionOf(type, message),
      ...numberChangeOf(type, message),
      ...userIdChangeOf(type, message),
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

/** The stored text (where the type has one a list can show) and the channel payload of the type, with the quoted message's context. */
function textAndContent(type: string, message: Json, context: Json | null): { text: string | null; content: Json | null } {
  const payload = Object.hasOwn(message, type) && isObject(message[type]) ? (message[type] as Json) : null;
  const withContext = (content: Json): Json => (context ? { ...content, context } : content);
  if (type === 'text') return { text: payload ? asString(payload.body) : null, content: context ? { context } : null };
  if (type === 'contacts') {
    const names = asArray(message.contacts).map((card) =>
      isObject(card) && isObject(card.name) ? asString(card.name.formatted_name) : null,
    );
    return {
      text: names.filter((name) => name !== null).join(', ') || null,
      content: withContext({ contacts: asArray(message.contacts) }),
    };
  }
  if (payload && type !== 'unsupported') {
    const text = MEDIA_TYPES.has(type) ? asString(payload.caption) : Object.hasOwn(TEXT_OF, type) ? TEXT_OF[type](payload) : null;
    return { text, content: withContext(type === 'interactive' ? withFlowResponse(payload) : payload) };
  }
  // Unsupported and unknown types keep the whole message (the channel's `errors` with it), so nothing it said is lost.
  const { from, id, timestamp, ...rest } = message;
  return { text: null, content: rest };
}

/**
 * A Flow's answer (`nfm_reply`) with its `response_json`, a JSON string of the form's fields, also
 * parsed into `response`, so that clients read the answers without parsing; one that does not
 * parse into an object, or nests deeper than any body may, stays only as the channel sent it.
 * Parsing turns escapes back into characters, so the parsed answers are made storable again.
 */
function withFlowResponse(interactive: Json): Json {
  const raw = isObject(interactive.nfm_reply) ? interactive.nfm_reply.response_json : undefined;
  if (typeof raw !== 'string' || nestsDeeperThan(raw)) return interactive;
  let response: unknown;
  try {
    response = JSON.parse(raw);
  } catch {
    return interactive;
  }
  return isObject(response) ? { ...interactive, response: toStorable(response) } : interactive;
}

/** The text a list shows, per type whose payload sits under the key named by the type (media: the caption). */
const TEXT_OF: Record<string, (payload: Json) => string | null> = {
  location: (payload) => {
    const named = [asString(payload.name), asString(payload.address)].filter((part) => part !== null).join(', ');
    const latitude = asNumber(payload.latitude);
    const longitude = asNumber(payload.longitude);
    return named || (latitude !== null && longitude !== null ? `${latitude}, ${longitude}` : null);
  },
  interactive: (payload) => {
    const reply = [payload.button_reply, payload.list_reply].find(isObject);
    if (reply) return asString(reply.title);
    return isObject(payload.nfm_reply) ? asString(payload.nfm_reply.body) : null;
  },
  button: (payload) => asString(payload.text),
  order: (payload) => orderSummary(payload),
  system: (payload) => asString(payload.body),
  reaction: (payload) => asString(payload.emoji),
};

/** `Order: 3 items, 2 products, catalog <id>`, then the customer's note: one line for a list. */
function orderSummary(order: Json): string {
  const products = asArray(order.product_items).filter(isObject);
  const items = products.reduce((sum, product) => sum + Math.max(0, asNumber(product.quantity) ?? 1), 0);
  const parts = [`${items} item${items === 1 ? '' : 's'}`, `${products.length} product${products.length === 1 ? '' : 's'}`];
  const catalog = asString(order.catalog_id);
  if (catalog) parts.push(`catalog ${catalog}`);
  const note = asString(order.text);
  return `Order: ${parts.join(', ')}${note ? `: ${note}` : ''}`;
}

/** A reaction names the message it reacts to; no emoji (or an empty one) removes the customer's reaction. */
function reactionOf(type: string, message: Json): { reaction?: { channelMessageId: string; emoji: string } } {
  const payload = isObject(message.reaction) ? message.reaction : null;
  const target = payload ? asString(payload.message_id) : null;
  if (type !== 'reaction' || !payload || !target) return {};
  return { reaction: { channelMessageId: target, emoji: typeof payload.emoji === 'string' ? payload.emoji : '' } };
}

/** Older Graph API versions named the number change `customer_changed_number`, with the new number in `new_wa_id`. */
const NUMBER_CHANGES = new Set(['user_changed_number', 'customer_changed_number']);

/** `system.type: user_changed_number`: the customer's new number is `system.wa_id`, the old one the message's `from`. */
function numberChangeOf(type: string, message: Json): { newPhone?: string } {
  const system = isObject(message.system) ? message.system : null;
  if (type !== 'system' || !system || typeof system.type !== 'string' || !NUMBER_CHANGES.has(system.type)) return {};
  const newPhone = toE164(asString(system.wa_id) ?? asString(system.new_wa_id) ?? '');
  return newPhone ? { newPhone } : {};
}

/**
 * `system.type: user_changed_user_id`: the customer's business-scoped user id changed; the old one
 * is `system.previous_user_id`, the new one `system.user_id` (or the message's `from_user_id`).
 */
function userIdChangeOf(type: string, message: Json): { previousUserId?: string; newUserId?: string } {
  const system = isObject(message.system) ? message.system : null;
  if (type !== 'system' || !system || system.type !== 'user_changed_user_id') return {};
  const previousUserId = asString(system.previous_user_id);
  const newUserId = userIdOf(system.user_id) ?? userIdOf(message.from_user_id);
  return previousUserId && newUserId ? { previousUserId, newUserId } : {};
}

function readStatus(status: unknown, receivedAt: Date, parsed: ParsedWebhook): void {
  const id = isObject(status) ? asString(status.id) : null;
  const value = isObject(status) ? asString(status.status) : null;
  if (!isObject(status) || !id || !CHANNEL_STATUSES.has(value ?? '')) {
    parsed.ignored.push(`a status ${JSON.stringify(value)} of ${JSON.stringify(id)}`);
    return;
  }
  parsed.statuses.push({
    channelMessageId: id,
    status: value as ChannelStatus['status'],
    error: value === 'failed' ? errorOf(status.errors) : null,
    pricing: isObject(status.pricing)
      ? { category: asString(status.pricing.category), type: asString(status.pricing.type), model: asString(status.pricing.pricing_model) }
      : null,
    at: timestampOf(status.timestamp, receivedAt),
  });
}

const CHANNEL_STATUSES = new Set(['sent', 'delivered', 'read', 'played', 'failed']);
/** The largest code the `integer` column holds; a larger one is kept in the error itself only. */
const INT4_MAX = 2_147_483_647;

function readChangeError(error: unknown, parsed: ParsedWebhook): void {
  if (!isObject(error)) {
    parsed.ignored.push(`a change error that is not an object (${JSON.stringify(error).slice(0, 200)})`);
    return;
  }
  parsed.errors.push({
    code: typeof error.code === 'number' && Number.isInteger(error.code) && Math.abs(error.code) <= INT4_MAX ? error.code : null,
    title: asString(error.title) ?? asString(error.message),
    details: isObject(error.error_data) ? asString(error.error_data.details) : null,
    error,
  });
}

/**
 * A template change: `{event, message_template_id, message_template_name,
 * message_template_language, reason}` for a status, `{…, new_category}` for a category (in both
 * the notice of a coming change and of a done one, `new_category` is the category it has now).
 */
function readTemplateChange(field: TemplateField, value: Json, businessAccountId: string | null, parsed: ParsedWebhook): void {
  const template: TemplateReference = {
    channelTemplateId: idOf(value.message_template_id),
    name: asString(value.message_template_name),
    language: asString(value.message_template_language),
  };
  const known = template.channelTemplateId !== null || (template.name !== null && template.language !== null);
  const event = asString(value.event);
  const category = asString(value.new_category);
  if (known && field === 'message_template_status_update' && event) {
    parsed.templates.push({ kind: 'status', businessAccountId, template, event, reason: asString(value.reason) });
  } else if (known && field === 'template_category_update' && category) {
    parsed.templates.push({ kind: 'category', businessAccountId, template, category });
  } else {
    parsed.ignored.push(`a ${field} change without a template or its ${field === 'template_category_update' ? 'new_category' : 'event'}`);
  }
}

/** A channel id, which the Graph API writes as a string and sometimes as a number. */
function idOf(value: unknown): string | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : asString(value);
}

/** The channel's reason for a failed status: `(#131047) Re-engagement message: <details>`. */
function errorOf(errors: unknown): string {
  const error = asArray(errors)[0];
  if (!isObject(error)) return 'The channel reported the message as failed';
  const details = isObject(error.error_data) ? asString(error.error_data.details) : null;
  const title = asString(error.title) ?? asString(error.message) ?? 'failed';
  return `${typeof error.code === 'number' ? `(#${error.code}) ` : ''}${title}${details ? `: ${details}` : ''}`;
}

/**
 * The channel's unix-seconds timestamp (a string) as a Date, or `receivedAt` when it is absent,
 * malformed or later than that: nothing was sent after it arrived, and a time in the future would
 * keep the customer's 24-hour window open until then.
 */
function timestampOf(value: unknown, receivedAt: Date): Date {
  const seconds = typeof value === 'string' || typeof value === 'number' ? Number(value) : NaN;
  const date = new Date(seconds * 1000);
  return seconds > 0 && !Number.isNaN(date.getTime()) && date <= receivedAt ? date : receivedAt;
}

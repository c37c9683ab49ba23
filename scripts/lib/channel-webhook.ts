/**
 * WhatsApp Cloud API webhook bodies as Meta delivers them to POST /api/webhooks/messaging, and
 * their X-Hub-Signature-256: the one builder of them, shared by `npm run simulate`, the bench's
 * ingest section and the tests (test/support/channel.ts, channel-fixtures.ts), so the developer's
 * hand-sent message, the load test and the tests exercise the same shape.
 *
 * Only what a real delivery carries (see the Cloud API "Webhooks: messages" reference): one
 * entry, one change of field "messages", the receiving number in `metadata`, the sender's
 * profile in `contacts`, then `messages` or `statuses`. Phones are digits without "+", as the
 * channel sends them; timestamps are unix seconds as strings.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Placeholders when no real account is configured; the service does not check them. */
const DEFAULT_BUSINESS_ACCOUNT_ID = '102290129340398';
const DEFAULT_PHONE_NUMBER_ID = '106540352242922';
const DEFAULT_DISPLAY_PHONE_NUMBER = '15550000000';

export interface BusinessNumber {
  businessAccountId?: string;
  phoneNumberId?: string;
  displayPhoneNumber?: string;
}

export interface InboundText {
  /** The customer's number as the channel writes it: digits only, no "+". */
  from: string;
  text: string;
  /** The customer's WhatsApp profile name; omitted from the body when null. */
  profileName: string | null;
  wamid?: string;
  /** Unix seconds; defaults to now. */
  timestamp?: number;
}

/** `played`: the customer listened to a voice message. */
export type StatusValue = 'sent' | 'delivered' | 'read' | 'played' | 'failed';
export const STATUS_VALUES: readonly StatusValue[] = ['sent', 'delivered', 'read', 'played', 'failed'];

export interface OutboundStatus {
  /** The wamid the channel gave the outbound message when it accepted the send. */
  wamid: string;
  /** The customer's number (digits only) the message went to. */
  recipient: string;
  status: StatusValue;
  timestamp?: number;
}

/**
 * A fresh channel message id. Real ones are `wamid.` and a base64 string of about 40 characters;
 * the service treats the id as opaque, so 24 random bytes in that shape are enough, and never
 * repeat (a repeated id is deduplicated by the service, which would hide the message).
 */
export function newWamid(): string {
  return `wamid.${randomBytes(24).toString('base64url')}`;
}

export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/** One customer text message, as a whole webhook body. */
export function inboundTextWebhook(message: InboundText, business: BusinessNumber = {}): Record<string, unknown> {
  return inboundMessageWebhook({ ...message, content: { type: 'text', text: message.text }, replyTo: null }, business);
}

/** The media kinds a customer can send, each under the key of its name. */
export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';
export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'document', 'sticker'];

/** What a customer sends, each kind as the Cloud API's messages webhook describes it. */
export type CustomerContent =
  | { type: 'text'; text: string }
  /** `emoji: ''` removes the customer's reaction: the channel then sends no emoji field. */
  | { type: 'reaction'; messageId: string; emoji: string }
  | { type: 'button_reply' | 'list_reply'; id: string; title: string }
  | { type: 'location'; latitude: number; longitude: number; name?: string; address?: string }
  | { type: 'contacts'; cards: { name: string; phone: string }[] }
  | { type: 'media'; kind: MediaKind; mediaId: string; mimeType: string; caption?: string; filename?: string; voice?: boolean };

export interface InboundMessage {
  /** The customer's number as the channel writes it: digits only, no "+". */
  from: string;
  content: CustomerContent;
  /** The wamid of the message it quotes (`context`), or null. */
  replyTo: string | null;
  /** The customer's WhatsApp profile name; omitted from the body when null. */
  profileName: string | null;
  wamid?: string;
  /** Unix seconds; defaults to now. */
  timestamp?: number;
  /** The business number shown as the quoted message's sender (`context.from`). */
  displayPhoneNumber?: string;
}

/** One customer message of any kind, as a whole webhook body. */
export function inboundMessageWebhook(message: InboundMessage, business: BusinessNumber = {}): Record<string, unknown> {
  const context = message.replyTo
    ? { context: { from: business.displayPhoneNumber ?? DEFAULT_DISPLAY_PHONE_NUMBER, id: message.replyTo } }
    : {};
  return messagesWebhook({
    ...(message.profileName !== null ? { contacts: [{ profile: { name: message.profileName }, wa_id: message.from }] } : {}),
    messages: [
      {
        ...context,
        from: message.from,
        id: message.wamid ?? newWamid(),
        timestamp: String(message.timestamp ?? unixNow()),
        ...payloadOf(message.content),
      },
    ],
  });
}

/** `type` and the payload under its key, as the channel writes each kind. */
function payloadOf(content: CustomerContent): Record<string, unknown> {
  switch (content.type) {
    case 'text':
      return { type: 'text', text: { body: content.text } };
    case 'reaction':
      return { type: 'reaction', reaction: { message_id: content.messageId, ...(content.emoji === '' ? {} : { emoji: content.emoji }) } };
    case 'button_reply':
    case 'list_reply':
      return { type: 'interactive', interactive: { type: content.type, [content.type]: { id: content.id, title: content.title } } };
    case 'location': {
      const { type, ...location } = content;
      return { type, location };
    }
    case 'contacts':
      return {
        type: 'contacts',
        contacts: content.cards.map((card) => ({
          name: { formatted_name: card.name, first_name: card.name.split(' ')[0] },
          phones: [{ phone: card.phone, type: 'CELL', wa_id: card.phone.replace(/\D/g, '') }],
        })),
      };
    case 'media':
      return {
        type: content.kind,
        [content.kind]: {
          ...(content.caption !== undefined ? { caption: content.caption } : {}),
          ...(content.filename !== undefined ? { filename: content.filename } : {}),
          mime_type: content.mimeType,
          id: content.mediaId,
          ...(content.voice ? { voice: true } : {}),
        },
      };
  }
}

/** A delivery status of an outbound message, as a whole webhook body. */
export function statusWebhook(update: OutboundStatus, business: BusinessNumber = {}): Record<string, unknown> {
  return messagesWebhook(
    {
      statuses: [
        {
          id: update.wamid,
          status: update.status,
          timestamp: String(update.timestamp ?? unixNow()),
          recipient_id: update.recipient,
          // What the channel sends when the customer's 24-hour window had closed, the commonest failure.
          ...(update.status === 'failed'
            ? {
                errors: [
                  {
                    code: 131047,
                    title: 'Re-engagement message',
                    message: 'Re-engagement message',
                    error_data: {
                      details:
                        'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
                    },
                  },
                ],
              }
            : {}),
        },
      ],
    },
    business,
  );
}

/** A whole webhook body: one entry of the business account, with one change of `field` (and the entry's `time`, where the channel sends one). */
export function webhookBody(
  change: { field: string; value: Record<string, unknown> },
  business: BusinessNumber = {},
  entry: { time?: number } = {},
): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      { id: business.businessAccountId ?? DEFAULT_BUSINESS_ACCOUNT_ID, ...entry, changes: [{ value: change.value, field: change.field }] },
    ],
  };
}

/** A whole webhook body with one change of field `messages`: the number that received it, then `value` (messages, statuses, contacts, errors). */
export function messagesWebhook(value: Record<string, unknown>, business: BusinessNumber = {}): Record<string, unknown> {
  return webhookBody(
    {
      field: 'messages',
      value: {
        messaging_product: 'whatsapp',
        metadata: {
          display_phone_number: business.displayPhoneNumber ?? DEFAULT_DISPLAY_PHONE_NUMBER,
          phone_number_id: business.phoneNumberId ?? DEFAULT_PHONE_NUMBER_ID,
        },
        ...value,
      },
    },
    business,
  );
}

/**
 * X-Hub-Signature-256: the HMAC-SHA256 of the exact bytes sent, keyed with the app secret. Sign the
 * string that goes on the wire: re-serialising the object could change the bytes.
 */
export function hubSignature(rawBody: string | Buffer, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

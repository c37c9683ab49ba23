/**
 * WhatsApp Cloud API webhook bodies as Meta delivers them to POST /api/webhooks/messaging, and
 * their X-Hub-Signature-256. Shared by `npm run simulate` and the bench's ingest section so the
 * developer's hand-sent message and the load test exercise the same shape.
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

export type StatusValue = 'sent' | 'delivered' | 'read' | 'failed';
export const STATUS_VALUES: readonly StatusValue[] = ['sent', 'delivered', 'read', 'failed'];

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
  return envelope(business, {
    ...(message.profileName !== null ? { contacts: [{ profile: { name: message.profileName }, wa_id: message.from }] } : {}),
    messages: [
      {
        from: message.from,
        id: message.wamid ?? newWamid(),
        timestamp: String(message.timestamp ?? unixNow()),
        type: 'text',
        text: { body: message.text },
      },
    ],
  });
}

/** A customer's media (the channel's media id and what it says of the file), as Meta's webhook carries it. */
export interface InboundMedia {
  from: string;
  profileName: string | null;
  type: 'image' | 'audio' | 'video' | 'document' | 'sticker';
  /** The channel's media id, to download with `GET /{media-id}`. */
  mediaId: string;
  mimeType: string;
  /** Base64, as webhooks carry it. */
  sha256: string;
  caption: string | null;
  /** Documents only. */
  filename: string | null;
  wamid?: string;
  timestamp?: number;
}

/** One customer media message, as a whole webhook body. */
export function inboundMediaWebhook(message: InboundMedia, business: BusinessNumber = {}): Record<string, unknown> {
  const payload: Record<string, unknown> = { mime_type: message.mimeType, sha256: message.sha256, id: message.mediaId };
  if (message.caption !== null && message.type !== 'audio' && message.type !== 'sticker') payload.caption = message.caption;
  if (message.type === 'document' && message.filename !== null) payload.filename = message.filename;
  if (message.type === 'audio') payload.voice = message.mimeType === 'audio/ogg';
  if (message.type === 'sticker') payload.animated = false;
  return envelope(business, {
    ...(message.profileName !== null ? { contacts: [{ profile: { name: message.profileName }, wa_id: message.from }] } : {}),
    messages: [
      {
        from: message.from,
        id: message.wamid ?? newWamid(),
        timestamp: String(message.timestamp ?? unixNow()),
        type: message.type,
        [message.type]: payload,
      },
    ],
  });
}

/** A delivery status of an outbound message, as a whole webhook body. */
export function statusWebhook(update: OutboundStatus, business: BusinessNumber = {}): Record<string, unknown> {
  return envelope(business, {
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
  });
}

function envelope(business: BusinessNumber, value: Record<string, unknown>): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: business.businessAccountId ?? DEFAULT_BUSINESS_ACCOUNT_ID,
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: business.displayPhoneNumber ?? DEFAULT_DISPLAY_PHONE_NUMBER,
                phone_number_id: business.phoneNumberId ?? DEFAULT_PHONE_NUMBER_ID,
              },
              ...value,
            },
            field: 'messages',
          },
        ],
      },
    ],
  };
}

/**
 * X-Hub-Signature-256: the HMAC-SHA256 of the exact bytes sent, keyed with the app secret. Sign the
 * string that goes on the wire: re-serialising the object could change the bytes.
 */
export function hubSignature(rawBody: string | Buffer, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

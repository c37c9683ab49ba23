import { randomBytes } from 'node:crypto';

/** Prefixes of public ids, one per resource kind (see the API contract). */
export type IdPrefix =
  | 'conv'
  | 'msg'
  | 'user'
  | 'evt'
  | 'ct'
  | 'wh'
  | 'ntf'
  | 'dlv'
  | 'ibf'
  | 'ibe'
  | 'tpl'
  | 'med'
  | 'lbl'
  | 'cr'
  | 'aud'
  | 'tok'
  | 'inb'
  | 'team'
  | 'rule'
  | 'run'
  | 'mac'
  | 'cmp';

/** The millisecond of the latest uuid made for the present, and its 12-bit sequence (RFC 9562, 6.2, method 1). */
let latest = { ms: -1, sequence: 0 };

/**
 * A new UUIDv7: 48 bits of milliseconds, a 12-bit sequence, then 62 random bits. Time-ordered, so
 * primary-key indexes stay compact and keyset pages follow creation order, yet not guessable.
 * Within one millisecond the sequence counts up from a random start below 2,048, so rows made one
 * after another in this process sort in the order they were made: the events of one transaction
 * carry one time and are relayed by (created_at, id), so conversation.created comes before the
 * message.received recorded after it. A time before the latest (a row dated in the past), or a
 * millisecond whose sequence ran out, gets a random sequence.
 */
export function newUuid(now = Date.now()): string {
  const bytes = randomBytes(16);
  const counted = now > latest.ms || (now === latest.ms && latest.sequence < 0xfff);
  if (counted) {
    latest =
      now > latest.ms ? { ms: now, sequence: (((bytes[6] & 0x0f) << 8) | bytes[7]) & 0x7ff } : { ms: now, sequence: latest.sequence + 1 };
    bytes[6] = latest.sequence >> 8;
    bytes[7] = latest.sequence & 0xff;
  }
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `user_0193…` from the stored uuid. */
export function toPublicId(prefix: IdPrefix, uuid: string): string {
  return `${prefix}_${uuid.replace(/-/g, '')}`;
}

/** The stored uuid behind a public id, or null when the prefix or shape is wrong. */
export function parsePublicId(prefix: IdPrefix, publicId: string): string | null {
  const match = new RegExp(`^${prefix}_([0-9a-f]{32})$`).exec(publicId);
  if (!match) return null;
  const hex = match[1];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

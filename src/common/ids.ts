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
/** How far behind the latest a time may be and still count on from it (a clock stepped back, a time taken a little earlier). */
const COUNTED_BEHIND_MS = 1000;

/**
 * A new UUIDv7: 48 bits of milliseconds, a 12-bit sequence, then 62 random bits. Time-ordered, so
 * primary-key indexes stay compact and keyset pages follow creation order, yet not guessable.
 * Ids made one after another in this process sort in the order they were made: within a
 * millisecond the sequence counts up from a random start below 2,048 (then into the next
 * millisecond), and a time up to a second behind the latest counts on from it. Events are relayed
 * by (created_at, id), and the events of one transaction may share a millisecond: the
 * conversation.created of a customer's first message comes before its message.received. The id's
 * time may so run ahead of the time given by up to a second. A time further back (a row dated in
 * the past) is its own, with a random sequence.
 */
export function newUuid(now = Date.now()): string {
  const bytes = randomBytes(16);
  const counted = now >= latest.ms - COUNTED_BEHIND_MS;
  if (now > latest.ms) latest = { ms: now, sequence: (((bytes[6] & 0x0f) << 8) | bytes[7]) & 0x7ff };
  else if (counted)
    latest = latest.sequence < 0xfff ? { ms: latest.ms, sequence: latest.sequence + 1 } : { ms: latest.ms + 1, sequence: 0 };
  if (counted) {
    bytes[6] = latest.sequence >> 8;
    bytes[7] = latest.sequence & 0xff;
  }
  bytes.writeUIntBE(counted ? latest.ms : now, 0, 6);
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

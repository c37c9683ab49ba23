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

/**
 * A new UUIDv7: 48 bits of milliseconds then 74 random bits. Time-ordered, so primary-key
 * indexes stay compact and keyset pages follow creation order, yet not guessable.
 */
export function newUuid(now = Date.now()): string {
  const bytes = randomBytes(16);
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

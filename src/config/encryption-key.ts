import { createHash } from 'node:crypto';

/** AES-256: keys of 32 bytes. */
export const KEY_BYTES = 32;

/** The id stored beside a value: the first 8 hex digits of the key's SHA-256. Says which key, reveals nothing of it. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Reads a key setting: 32 bytes given as base64 (`openssl rand -base64 32`) or hex (64 digits).
 * Null when it is neither; the caller reports the setting by name, never the value.
 */
export function parseKey(text: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  const key = Buffer.from(text, 'base64');
  return key.length === KEY_BYTES ? key : null;
}

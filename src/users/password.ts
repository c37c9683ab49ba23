import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { DEFAULT_PASSWORD_HASH_COST } from '../config/app-config';

/**
 * scrypt (memory-hard, built into Node) at OWASP's recommendation (Password Storage Cheat Sheet:
 * N=2^17, r=8, p=1, or the equivalent N=2^15, r=8, p=3): N=2^15 by default (PASSWORD_HASH_COST),
 * r=8, p=3, so 32 MiB per hash rather than 128 MiB (concurrent logins on a small server) for the
 * same work. The parameters are stored in each hash: a weaker one still verifies, and is made
 * again at the owner's next login (needsRehash).
 */
const COST = { N: 2 ** DEFAULT_PASSWORD_HASH_COST, r: 8, p: 3 };
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;
const DISCARDED_SALT = Buffer.alloc(16);

/** `cost`: log2 of scrypt's N (PASSWORD_HASH_COST). */
export async function hashPassword(password: string, cost = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  const parameters = { ...COST, N: 2 ** cost };
  const salt = randomBytes(16);
  const key = await derive(password, salt, parameters);
  return `scrypt$${parameters.N}$${parameters.r}$${parameters.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
  // A hash made with fewer lanes than today's takes less time, and the decoy an unknown e-mail is
  // checked against has today's: the missing lanes are spent on nothing, so the time of a wrong
  // password tells no one whether the account exists before its owner logs in again (rehash).
  if (Number(p) < COST.p) await derive(password, DISCARDED_SALT, { N: Number(n), r: Number(r), p: COST.p - Number(p) }, KEY_LENGTH);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a stored hash was made with weaker parameters than `cost` and today's r and p. */
export function needsRehash(stored: string, cost = DEFAULT_PASSWORD_HASH_COST): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) < 2 ** cost || Number(r) < COST.r || Number(p) < COST.p;
}

/** A hash of nothing at `cost`, checked when the e-mail is unknown so a miss takes as long as a wrong password. */
export function decoyPasswordHash(cost = DEFAULT_PASSWORD_HASH_COST): string {
  return `scrypt$${2 ** cost}$${COST.r}$${COST.p}$AAAAAAAAAAAAAAAAAAAAAA==$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;
}

function derive(password: string, salt: Buffer, cost: typeof COST, length = KEY_LENGTH): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, length, { ...cost, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

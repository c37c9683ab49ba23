import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { DEFAULT_PASSWORD_HASH_COST } from '../config/app-config';

/**
 * scrypt (memory-hard, built into Node) with N=2^15 by default (PASSWORD_HASH_COST), r=8: 32 MiB
 * and ~50-100 ms per hash on a small server core. The parameters are stored in each hash, so they
 * can be raised later without invalidating existing passwords.
 */
const COST = { N: 2 ** DEFAULT_PASSWORD_HASH_COST, r: 8, p: 1 };
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

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
  return actual.length === expected.length && timingSafeEqual(actual, expected);
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

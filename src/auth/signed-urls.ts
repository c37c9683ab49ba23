import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';

/**
 * What a signature check found. `unrecognised`: a well-formed signature this key did not make,
 * which is most often one made before the key changed (a new SESSION_SECRET), so the client is told
 * to reload, as for an expired one; a forgery gets the same answer and nothing more.
 */
export type SignedUrlVerdict = 'valid' | 'expired' | 'unrecognised' | 'invalid';

/** The longest a signed URL may live (MEDIA_URL_TTL is checked against it too): an `expires` further out was not made here. */
const MAX_TTL_SECONDS = 7 * 86_400;

/** `<path>?expires=<unix seconds>&signature=<base64url HMAC-SHA256 of "<path>\n<expires>">`. */
export function signPath(key: Buffer, path: string, expiresAt: number): string {
  return `${path}?expires=${expiresAt}&signature=${signatureOf(key, path, expiresAt)}`;
}

/**
 * Checks the `expires` and `signature` query values of a request for `path`: the signature must be
 * this key's over exactly this path and expiry (compared in constant time), and the expiry in the
 * future but not beyond what a signer could have given.
 */
export function verifySignedPath(key: Buffer, path: string, expires: unknown, signature: unknown, nowMs = Date.now()): SignedUrlVerdict {
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') return 'invalid';
  const expiresAt = Number(expires);
  const given = Buffer.from(signature, 'base64url');
  const expected = Buffer.from(signatureOf(key, path, expiresAt), 'base64url');
  if (signature !== given.toString('base64url') || given.length !== expected.length) return 'invalid';
  if (!timingSafeEqual(given, expected)) return 'unrecognised';
  const now = Math.floor(nowMs / 1000);
  if (expiresAt > now + MAX_TTL_SECONDS) return 'invalid';
  return expiresAt > now ? 'valid' : 'expired';
}

function signatureOf(key: Buffer, path: string, expiresAt: number): string {
  return createHmac('sha256', key).update(`${path}\n${expiresAt}`).digest('base64url');
}

/**
 * Short-lived URLs that stand in for the bearer token where a client cannot send a header (a
 * browser's `<img src>`): the path and an expiry, signed with a key derived from SESSION_SECRET
 * (its own key, so a signature is never a token's and rotating the secret ends both). Only routes
 * marked `@AllowSignedUrl()` accept them.
 */
@Injectable()
export class SignedUrls {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = createHmac('sha256', config.sessionSecret).update('team-inbox signed URLs v1').digest();
  }

  /** The path with its expiry and signature, valid for `ttlMs`. */
  sign(path: string, ttlMs: number): string {
    return signPath(this.key, path, Math.floor((Date.now() + ttlMs) / 1000));
  }

  /** The verdict on a request's `expires` and `signature` for the path it asked for. */
  check(request: FastifyRequest): SignedUrlVerdict {
    const { expires, signature } = request.query as Record<string, unknown>;
    return verifySignedPath(this.key, request.url.split('?')[0], expires, signature);
  }

  /** Whether the request tries a signature at all (else it needs a bearer token). */
  carriesSignature(request: FastifyRequest): boolean {
    const query = request.query as Record<string, unknown> | undefined;
    return query?.signature !== undefined || query?.expires !== undefined;
  }
}

import { ForbiddenException, UnauthorizedException } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The check of a channel webhook's X-Hub-Signature-256 (`sha256=<hex HMAC of the raw body keyed
 * with an app secret>`): it must verify with every key of the inboxes its changes are for. A null
 * key (no app secret anywhere) lets the body through unchecked outside production, for trying the
 * service, and refuses it in production: unverified webhooks would let anyone write as any customer.
 */
export function checkChannelSignature(
  rawBody: Buffer | undefined,
  signature: string | undefined,
  keys: ReadonlySet<string | null>,
  production: boolean,
): void {
  if (keys.has(null) && production) {
    throw new ForbiddenException(
      'Channel webhooks are refused: neither the inbox nor MESSAGING_APP_SECRET has an app secret, and production verifies every webhook',
    );
  }
  for (const key of keys) {
    if (key === null) continue;
    const expected = `sha256=${createHmac('sha256', key)
      .update(rawBody ?? Buffer.alloc(0))
      .digest('hex')}`;
    if (!signature || !sameSecret(signature, expected))
      throw new UnauthorizedException('X-Hub-Signature-256 is missing or does not match the body');
  }
}

/** Compares in constant time, so the answer's timing tells nothing of the secret. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

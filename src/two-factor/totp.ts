import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_S = 30;
const ISSUER = 'Team Inbox';

/** A new secret (160 bits, as RFC 4226 recommends), in base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/…` URL an authenticator app reads from a QR code. */
export function otpauthUrl(secret: string, account: string): string {
  return totpOf(secret, account).toString();
}

/**
 * The time step `code` is valid for, one step of clock drift either way allowed; null when it is
 * not a current code. The caller refuses a step already used, so a code works once.
 */
export function totpStepOf(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret, '').validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
}

/** The current code of `secret` (tests and the simulator play the authenticator app). */
export function totpCodeOf(secret: string, now = Date.now()): string {
  return totpOf(secret, '').generate({ timestamp: now });
}

function totpOf(secret: string, account: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: account, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) });
}

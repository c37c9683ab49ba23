import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import type { UserRow } from '../users/user.entity';

/** What an access token carries: the user and the token generation it was issued in. */
export interface TokenClaims {
  sub: string;
  ver: number;
}

/** A client sends the same token on every request: its signature is checked once a minute, not each time. */
const VERIFIED_TOKEN_TTL_MS = 60_000;
const VERIFIED_TOKEN_MAX_ENTRIES = 10_000;

/**
 * Issues and reads access tokens (HS256 JWTs keyed with SESSION_SECRET). Reading is memoised per
 * request, because both the rate limiter (to count per user) and the auth guard need the claims,
 * and per token string for a minute (never past the token's expiry), because checking the
 * signature was a tenth of the CPU of an authenticated request (measured by the bench).
 */
@Injectable()
export class AuthTokenService {
  private readonly claimsByRequest = new WeakMap<FastifyRequest, TokenClaims | null>();
  private readonly verifiedTokens = new Map<string, { claims: TokenClaims; trustedUntil: number }>();

  constructor(
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  issue(user: UserRow): { token: string; expiresAt: Date } {
    const expiresInSeconds = Math.floor(this.config.authTokenTtlMs / 1000);
    const token = this.jwt.sign({ sub: user.id, ver: user.token_version } satisfies TokenClaims, { expiresIn: expiresInSeconds });
    return { token, expiresAt: new Date(Date.now() + expiresInSeconds * 1000) };
  }

  /** Whether the request carries any bearer credential, valid or not. */
  hasBearer(request: FastifyRequest): boolean {
    return bearerOf(request) !== null;
  }

  /** The verified claims of the request's bearer token; null when absent, malformed, forged or expired. */
  claimsOf(request: FastifyRequest): TokenClaims | null {
    if (this.claimsByRequest.has(request)) return this.claimsByRequest.get(request) ?? null;
    const claims = this.verify(bearerOf(request));
    this.claimsByRequest.set(request, claims);
    return claims;
  }

  /** The verified claims of a token given some other way than the Authorization header. */
  verify(token: string | null): TokenClaims | null {
    if (token === null) return null;
    const now = Date.now();
    const verified = this.verifiedTokens.get(token);
    if (verified && verified.trustedUntil > now) return verified.claims;
    this.verifiedTokens.delete(token);
    try {
      const payload = this.jwt.verify<Partial<TokenClaims> & { exp: number }>(token, { algorithms: ['HS256'] });
      if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number') return null;
      const claims = { sub: payload.sub, ver: payload.ver };
      if (this.verifiedTokens.size >= VERIFIED_TOKEN_MAX_ENTRIES) this.verifiedTokens.delete(this.verifiedTokens.keys().next().value!);
      this.verifiedTokens.set(token, { claims, trustedUntil: Math.min(now + VERIFIED_TOKEN_TTL_MS, payload.exp * 1000) });
      return claims;
    } catch {
      return null;
    }
  }
}

function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match ? match[1] : '';
}

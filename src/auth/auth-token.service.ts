import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import { ExpiringCache } from '../common/expiring-cache';
import { newUuid } from '../common/ids';
import { UserResponse } from '../users/user.dto';
import type { UserRow } from '../users/user.entity';
import type { LoginResponse } from './auth.dto';
import type { Access } from './access';

/** What an access token carries: the user, the token generation it was issued in, its session and its expiry (seconds). */
export interface TokenClaims {
  sub: string;
  ver: number;
  /** The session (a uuid) logout revokes; null in tokens issued before sessions had ids. */
  sid: string | null;
  exp: number;
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
  private readonly verifiedTokens = new ExpiringCache<TokenClaims>(VERIFIED_TOKEN_MAX_ENTRIES);

  constructor(
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  /** A new session's access token. */
  issue(user: UserRow): { token: string; expiresAt: Date } {
    const expiresInSeconds = Math.floor(this.config.authTokenTtlMs / 1000);
    const token = this.jwt.sign({ sub: user.id, ver: user.token_version, sid: newUuid() } satisfies Omit<TokenClaims, 'exp'>, {
      expiresIn: expiresInSeconds,
    });
    return { token, expiresAt: new Date(Date.now() + expiresInSeconds * 1000) };
  }

  /** What a login answers: a fresh token of the user's current generation, and the user. */
  sessionFor(user: UserRow): LoginResponse {
    const { token, expiresAt } = this.issue(user);
    return { token, expires_at: expiresAt.toISOString(), user: UserResponse.of(user) };
  }

  /** Whether the request carries any bearer credential, valid or not. */
  hasBearer(request: FastifyRequest): boolean {
    return bearerOf(request) !== null;
  }

  /** The request's bearer credential as sent (an access token or an API token's secret); null without one. */
  bearerOf(request: FastifyRequest): string | null {
    return bearerOf(request);
  }

  /** The access an access token's claims stand for. */
  static accessOf(claims: TokenClaims): Access {
    return {
      userId: claims.sub,
      credential: { kind: 'session', version: claims.ver, sessionId: claims.sid },
      expiresAt: claims.exp * 1000,
    };
  }

  /** The verified claims of the request's bearer token; null when absent, malformed, forged or expired. */
  claimsOf(request: FastifyRequest): TokenClaims | null {
    if (this.claimsByRequest.has(request)) return this.claimsByRequest.get(request) ?? null;
    const claims = this.verify(bearerOf(request));
    this.claimsByRequest.set(request, claims);
    return claims;
  }

  private verify(token: string | null): TokenClaims | null {
    if (token === null) return null;
    const now = Date.now();
    const verified = this.verifiedTokens.get(token, now);
    if (verified) return verified;
    try {
      const payload = this.jwt.verify<Partial<TokenClaims> & { exp: number }>(token, { algorithms: ['HS256'] });
      if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number') return null;
      if (payload.sid !== undefined && typeof payload.sid !== 'string') return null;
      const claims = { sub: payload.sub, ver: payload.ver, sid: payload.sid ?? null, exp: payload.exp };
      this.verifiedTokens.set(token, claims, Math.min(now + VERIFIED_TOKEN_TTL_MS, payload.exp * 1000));
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

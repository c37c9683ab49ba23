import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import type { User } from '../users/user.entity';

/** What an access token carries: the user and the token generation it was issued in. */
export interface TokenClaims {
  sub: string;
  ver: number;
}

/**
 * Issues and reads access tokens (HS256 JWTs keyed with SESSION_SECRET). Reading is memoised per
 * request, because both the rate limiter (to count per user) and the auth guard need the claims.
 */
@Injectable()
export class AuthTokenService {
  private readonly claimsByRequest = new WeakMap<FastifyRequest, TokenClaims | null>();

  constructor(
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  issue(user: User): { token: string; expiresAt: Date } {
    const expiresInSeconds = Math.floor(this.config.authTokenTtlMs / 1000);
    const token = this.jwt.sign({ sub: user.id, ver: user.tokenVersion } satisfies TokenClaims, { expiresIn: expiresInSeconds });
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

  private verify(token: string | null): TokenClaims | null {
    if (token === null) return null;
    try {
      const payload = this.jwt.verify<Partial<TokenClaims>>(token, { algorithms: ['HS256'] });
      return typeof payload.sub === 'string' && typeof payload.ver === 'number' ? { sub: payload.sub, ver: payload.ver } : null;
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

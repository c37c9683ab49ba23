import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { createHmac } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import type { UserRow } from '../users/user.entity';

/** How long the second step of a login may wait for its code. */
export const MFA_TOKEN_TTL_S = 300;

/**
 * The token between a login's two steps: the password was right, the second factor is still
 * asked. A JWT of 5 minutes signed with its own key derived from SESSION_SECRET, so it is never
 * an access token; it carries the token generation, so a password change in between ends it.
 */
@Injectable()
export class MfaTokens {
  private readonly key: Buffer;

  constructor(
    private readonly jwt: JwtService,
    config: AppConfig,
  ) {
    this.key = createHmac('sha256', config.sessionSecret).update('team-inbox mfa token').digest();
  }

  issue(user: UserRow): string {
    return this.jwt.sign(
      { sub: user.id, ver: user.token_version, mfa: true },
      { secret: this.key, expiresIn: MFA_TOKEN_TTL_S, algorithm: 'HS256' },
    );
  }

  /** The user and generation of a valid, unexpired token; null otherwise. */
  verify(token: string): { sub: string; ver: number } | null {
    try {
      const payload = this.jwt.verify<{ sub?: unknown; ver?: unknown; mfa?: unknown }>(token, { secret: this.key, algorithms: ['HS256'] });
      if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number' || payload.mfa !== true) return null;
      return { sub: payload.sub, ver: payload.ver };
    } catch {
      return null;
    }
  }
}

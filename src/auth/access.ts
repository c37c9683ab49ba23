import { Injectable } from '@nestjs/common';
import { ApiTokensService } from './api-tokens/api-tokens.service';
import { AppConfig } from '../config/app-config';
import type { UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { SessionRevocations } from './session-revocations';

/** The credential a request or a stream came with. */
export type Credential =
  /** An access token from a login: the token generation it was issued in, and its session (null for tokens issued before sessions had ids). */
  | { kind: 'session'; version: number; sessionId: string | null }
  /** An API token (its uuid). */
  | { kind: 'api_token'; tokenId: string };

/** Who a credential stands for, and until when (ms since the epoch; Infinity for an API token without expiry). */
export interface Access {
  userId: string;
  credential: Credential;
  expiresAt: number;
}

/** Why an access no longer holds, and the status a request with it answers. */
export interface AccessEnded {
  status: 401 | 403;
  reason: string;
}

/**
 * Whether an access still holds, asked the same way by the auth guard on every request and by the
 * event stream for a stream that stays open: not expired, the user still there, the token neither
 * revoked (logout, password change or reset, the API token deleted) nor locked out by
 * BETA_ACCESS_ONLY. Answers the user as they are now.
 */
@Injectable()
export class AccessCheck {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionRevocations,
    private readonly apiTokens: ApiTokensService,
    private readonly config: AppConfig,
  ) {}

  async check(access: Access, now = Date.now()): Promise<UserRow | AccessEnded> {
    if (now >= access.expiresAt) return { status: 401, reason: 'Token is invalid or has expired' };
    const user = await this.users.findForAuth(access.userId);
    if (!user) return { status: 401, reason: 'Token has been revoked' };
    const { credential } = access;
    if (credential.kind === 'session') {
      if (user.token_version !== credential.version) return { status: 401, reason: 'Token has been revoked' };
      if (credential.sessionId !== null && (await this.sessions.isRevoked(credential.sessionId))) {
        return { status: 401, reason: 'Token has been revoked' };
      }
    } else if (!(await this.apiTokens.isActive(credential.tokenId))) {
      return { status: 401, reason: 'API token has been revoked or has expired' };
    }
    if (this.config.betaAccessOnly && user.role !== 'admin' && !user.beta_access) return { status: 403, reason: 'Beta access required' };
    return user;
  }
}

export function accessEnded(result: UserRow | AccessEnded): result is AccessEnded {
  return 'reason' in result && 'status' in result && !('id' in result);
}

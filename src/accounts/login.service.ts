import { Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { AuditLogService } from '../audit/audit-log.service';
import { toPublicId } from '../common/ids';
import { requestContext } from '../common/request-context';
import { RetryLaterException } from '../common/retry-later.exception';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { MailService } from '../mail/mail.service';
import { TwoFactorService } from '../two-factor/two-factor.service';
import type { UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import type { Access } from '../auth/access';
import type { LoginResponse } from '../auth/auth.dto';
import { AuthTokenService } from '../auth/auth-token.service';
import { LoginDto, LoginMfaDto, MfaChallengeResponse } from './login.dto';
import { accountLockedEmail } from './account-emails';
import { LoginFailureRepository } from './login-failure.repository';
import { MfaTokens } from './mfa-tokens';
import { SessionRevocations } from '../auth/session-revocations';

/** Per account, whatever the addresses: this many failed logins within the window lock password login for the lock's time. */
const LOCKOUT = { failures: 10, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };
const WRONG_CREDENTIALS = 'Email or password is incorrect';

/**
 * Logging in and out: the password, then the second factor when the user has one; failures
 * counted per account (LOCKOUT) and every attempt in the audit log; logout ends the session it
 * is called with (or every session of the user).
 */
@Injectable()
export class LoginService {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly tokens: AuthTokenService,
    private readonly mfaTokens: MfaTokens,
    private readonly twoFactor: TwoFactorService,
    private readonly failures: LoginFailureRepository,
    private readonly sessions: SessionRevocations,
    private readonly mail: MailService,
    private readonly audit: AuditLogService,
  ) {}

  /** The password step: a session, or the challenge for the second factor when the user has one. */
  async login(dto: LoginDto): Promise<LoginResponse | MfaChallengeResponse> {
    const user = await this.users.findByEmail(dto.email);
    refuseWhileLocked(user);
    const valid = await this.users.checkPassword(user, dto.password);
    if (!valid || user?.status !== 'active') {
      if (await this.database.transaction((db) => this.failed(db, user, 'password'))) await this.users.forget(user!.id);
      throw new UnauthorizedException(WRONG_CREDENTIALS);
    }
    await this.users.upgradePasswordHash(user, dto.password);
    if (user.two_factor_enabled) return { mfa_required: true, mfa_token: this.mfaTokens.issue(user) };
    return this.succeeded(user, 'password');
  }

  /** The second step: a code of the authenticator app, or a recovery code. */
  async loginWithSecondFactor(dto: LoginMfaDto): Promise<LoginResponse> {
    const claims = this.mfaTokens.verify(dto.mfa_token);
    if (!claims) throw new UnauthorizedException('mfa_token is invalid or has expired: log in again');
    const user = await this.users.find(this.database.db, claims.sub);
    if (!user || user.status !== 'active' || user.token_version !== claims.ver || !user.two_factor_enabled) {
      throw new UnauthorizedException('mfa_token is invalid or has expired: log in again');
    }
    refuseWhileLocked(user);
    // The lock is read again, its row held, in the transaction that checks the code and counts a
    // failure: codes guessed at once are checked one after another, and none passes once locked.
    const { factor, locked } = await this.database.transaction(async (db) => {
      await this.refuseWhileLockedIn(db, user);
      const checked = await this.twoFactor.check(db, user.id, dto.code);
      return { factor: checked, locked: checked === null && (await this.failed(db, user, 'second_factor')) };
    });
    if (locked) await this.users.forget(user.id);
    if (!factor) throw new UnauthorizedException('code is incorrect, expired or used already');
    return this.succeeded(user, factor);
  }

  /** Ends the session the request came with; `everywhere`: every session of the user, on every device. */
  async logout(user: UserRow, access: Access, everywhere: boolean): Promise<void> {
    const credential = access.credential;
    const sessionId = credential.kind === 'session' ? credential.sessionId : null;
    await this.database.transaction(async (db) => {
      if (everywhere || sessionId === null) await this.users.revokeTokensIn(db, user);
      else await this.sessions.revoke(db, sessionId, new Date(access.expiresAt));
      await this.audit.record(db, 'logout', {
        target: toPublicId('user', user.id),
        details: { everywhere: everywhere || sessionId === null },
      });
    });
    if (!everywhere && sessionId !== null) await this.sessions.announce(sessionId);
    // Its open streams check their access again at once.
    await this.users.forget(user.id);
  }

  /** An admin lifts a lockout. */
  async unlock(userId: string): Promise<void> {
    await this.database.transaction(async (db) => {
      if (!(await this.users.find(db, userId, true))) throw new NotFoundException('User not found');
      const wasLocked = await this.failures.clear(db, userId);
      await this.audit.record(db, 'login.unlocked', { target: toPublicId('user', userId), details: { was_locked: wasLocked } });
    });
    await this.users.forget(userId);
  }

  /** In the caller's transaction: the account's failed logins and lock are forgotten (its owner reset the password by e-mail). */
  async clearLoginFailures(db: Db, userId: string): Promise<void> {
    await this.failures.clear(db, userId);
  }

  private async succeeded(user: UserRow, method: 'password' | 'totp' | 'recovery_code'): Promise<LoginResponse> {
    const hadFailures = await this.database.transaction(async (db) => {
      // A guess that was right but made while the account got locked (requests at once) does not get in.
      await this.refuseWhileLockedIn(db, user);
      const cleared = await this.failures.clear(db, user.id);
      await this.audit.record(db, 'login.succeeded', {
        actor: { id: user.id, email: user.email },
        target: toPublicId('user', user.id),
        details: { method },
      });
      return cleared;
    });
    if (hadFailures) await this.users.forget(user.id);
    return this.tokens.sessionFor(user);
  }

  private async refuseWhileLockedIn(db: Db, user: UserRow): Promise<void> {
    refuseWhileLocked({ ...user, locked_until: await this.failures.lockedUntil(db, user.id, new Date()) });
  }

  /**
   * In the caller's transaction: counts a failure against the account (when there is one), locks
   * it at the limit and tells its owner; all in the audit log. What was typed as the e-mail is
   * recorded only when it is an account's (a password pasted into the field stays out of the log).
   * Answers whether this failure locked the account (the caller forgets the user after the commit).
   */
  private async failed(db: Db, user: UserRow | null, step: 'password' | 'second_factor'): Promise<boolean> {
    await this.audit.record(db, 'login.failed', {
      actor: null,
      target: user ? toPublicId('user', user.id) : null,
      details: { step, known_account: user !== null },
    });
    if (!user || user.status !== 'active') return false;
    const count = await this.failures.record(db, user.id, new Date(), LOCKOUT.failures, LOCKOUT.windowMs, LOCKOUT.lockMs);
    if (count.lockedUntil === null) return false;
    await this.audit.record(db, 'login.locked', {
      actor: null,
      target: toPublicId('user', user.id),
      details: { failures: count.failures, locked_until: count.lockedUntil.toISOString() },
    });
    await this.mail.enqueue(db, {
      userId: user.id,
      kind: 'account_locked',
      to: user.email,
      content: accountLockedEmail(user, count.lockedUntil, count.failures, requestContext.getStore()?.ip ?? null),
    });
    return true;
  }
}

/** A locked account's password login answers 429 until the lock ends, before any password is checked. */
function refuseWhileLocked(user: UserRow | null): void {
  const until = user?.locked_until?.getTime() ?? 0;
  const waitS = (until - Date.now()) / 1000;
  if (waitS > 0) {
    throw new RetryLaterException(
      'This account is locked after too many failed logins: try again after the time given in Retry-After, or ask an admin to unlock it',
      waitS,
    );
  }
}

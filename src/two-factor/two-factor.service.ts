import { ConflictException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { createHash, randomInt } from 'node:crypto';
import { AuditLogService } from '../audit/audit-log.service';
import { AuthTokenService } from '../auth/auth-token.service';
import { toPublicId } from '../common/ids';
import { SecretBox } from '../config/secret-box';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import type { UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { newTotpSecret, otpauthUrl, totpStepOf } from './totp';
import { TwoFactorRepository } from './two-factor.repository';
import type { RecoveryCodesResponse } from './two-factor.dto';

const RECOVERY_CODES = 10;
/** Recovery codes are 10 characters of this alphabet (50 bits), shown as XXXXX-XXXXX; no 0/O, 1/I. */
const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const INCORRECT_CODE = 'code is incorrect, expired or used already';

/** Which second factor a code was. */
export type SecondFactor = 'totp' | 'recovery_code';

/**
 * Two-factor login (TOTP, RFC 6238) with recovery codes. The secret is sealed with ENCRYPTION_KEY;
 * a code is accepted once (the time step it was used for is kept) and a recovery code once. Every
 * change is in the audit log.
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly database: Database,
    private readonly factors: TwoFactorRepository,
    private readonly secrets: SecretBox,
    private readonly users: UsersService,
    private readonly audit: AuditLogService,
    private readonly tokens: AuthTokenService,
  ) {}

  /** Starts enrolment, with the current password: a new secret, on once a code of it is given (enable). */
  async begin(user: UserRow, password: string): Promise<{ secret: string; otpauth_url: string }> {
    if (!(await this.users.checkPassword(user, password))) throw new UnprocessableEntityException('password is incorrect');
    const secret = newTotpSecret();
    await this.database.transaction(async (db) => {
      const current = await this.factors.find(db, user.id, true);
      if (current?.enabled_at) throw new ConflictException('Two-factor login is on already: turn it off first to enrol another device');
      await this.factors.savePending(db, user.id, this.secrets.seal(secret));
    });
    return { secret, otpauth_url: otpauthUrl(secret, user.email) };
  }

  /**
   * Turns it on with a first code; answers the recovery codes, shown this once, and a new session:
   * every token issued before (a session an attacker with the password opened, one REQUIRE_2FA
   * kept to enrolment) stops working, since none of them was obtained with the second factor.
   */
  async enable(user: UserRow, code: string): Promise<RecoveryCodesResponse> {
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    const enabled = await this.database.transaction(async (db) => {
      const pending = await this.factors.find(db, user.id, true);
      if (pending?.enabled_at) throw new ConflictException('Two-factor login is on already');
      if (!pending)
        throw new UnprocessableEntityException('Start with POST /api/v1/me/2fa, then enable with a code of the secret it answers');
      const step = totpStepOf(this.secrets.open(pending.secret), code.trim());
      if (step === null) throw new UnprocessableEntityException(INCORRECT_CODE);
      await this.factors.enable(db, user.id, step, new Date());
      await this.factors.replaceRecoveryCodes(
        db,
        user.id,
        codes.map((recovery) => hashOfRecoveryCode(user.id, recovery)),
      );
      await this.users.revokeTokensIn(db, user);
      await this.audit.record(db, '2fa.enabled', { target: toPublicId('user', user.id) });
      return (await this.users.find(db, user.id))!;
    });
    await this.users.forget(user.id);
    const { token, expires_at } = this.tokens.sessionFor(enabled);
    return { recovery_codes: codes, token, expires_at };
  }

  /** Turns it off with a current code or a recovery code. */
  async disable(user: UserRow, code: string): Promise<void> {
    await this.database.transaction(async (db) => {
      if (!(await this.factors.find(db, user.id, true))?.enabled_at) throw new UnprocessableEntityException('Two-factor login is not on');
      if ((await this.check(db, user.id, code)) === null) throw new UnprocessableEntityException(INCORRECT_CODE);
      await this.factors.delete(db, user.id);
      await this.audit.record(db, '2fa.disabled', { target: toPublicId('user', user.id) });
    });
    await this.users.forget(user.id);
  }

  /** An admin turns another user's second factor off (a lost phone and no recovery code left); their own needs a code (disable). */
  async reset(admin: UserRow, userId: string): Promise<void> {
    if (admin.id === userId)
      throw new UnprocessableEntityException('Turn your own two-factor login off with a code: DELETE /api/v1/me/2fa');
    await this.database.transaction(async (db) => {
      if (!(await this.users.find(db, userId, true))) throw new NotFoundException('User not found');
      if ((await this.factors.delete(db, userId)) === 0) throw new UnprocessableEntityException('The user has no second factor');
      await this.audit.record(db, '2fa.reset', { target: toPublicId('user', userId) });
    });
    await this.users.forget(userId);
  }

  /**
   * In the caller's transaction: which second factor `code` is for the user (a TOTP code not used
   * before, or an unused recovery code, which is then used up), or null.
   */
  async check(db: Db, userId: string, code: string): Promise<SecondFactor | null> {
    const factor = await this.factors.find(db, userId, true);
    if (!factor?.enabled_at) return null;
    const trimmed = code.trim();
    const step = totpStepOf(this.secrets.open(factor.secret), trimmed);
    if (step !== null) {
      if (factor.last_step !== null && step <= factor.last_step) return null;
      await this.factors.useStep(db, userId, step);
      return 'totp';
    }
    if (!(await this.factors.useRecoveryCode(db, userId, hashOfRecoveryCode(userId, trimmed)))) return null;
    await this.audit.record(db, '2fa.recovery_code_used', {
      target: toPublicId('user', userId),
      details: { recovery_codes_left: await this.factors.unusedRecoveryCodes(db, userId) },
    });
    return 'recovery_code';
  }
}

function newRecoveryCode(): string {
  const characters = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]);
  return `${characters.slice(0, 5).join('')}-${characters.slice(5).join('')}`;
}

/**
 * Case, spaces and dashes do not matter when a recovery code is typed. The user's id salts the
 * hash, so a stolen table cannot be checked against every user's codes at once.
 */
function hashOfRecoveryCode(userId: string, code: string): string {
  return createHash('sha256')
    .update(`${userId}:${code.toUpperCase().replace(/[\s-]/g, '')}`, 'utf8')
    .digest('hex');
}

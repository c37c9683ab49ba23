import {
  BadRequestException,
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleInit,
  UnprocessableEntityException,
} from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { ApiTokensService } from '../auth/api-tokens/api-tokens.service';
import { AuthTokenService } from '../auth/auth-token.service';
import { LoginService } from './login.service';
import type { LoginResponse } from '../auth/auth.dto';
import { AuditLogService } from '../audit/audit-log.service';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { RetentionService } from '../events/retention.service';
import { MailService } from '../mail/mail.service';
import { hashPassword } from '../users/password';
import { CreateUserDto, MeResponse, UserResponse } from '../users/user.dto';
import type { UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { invitationEmail, passwordResetEmail } from './account-emails';
import type { AccountTokenPurpose } from './account-token.entity';
import { AccountTokenRepository } from './account-token.repository';
import { AcceptInvitationDto, InvitedUserResponse, ProfileResponse, ResetPasswordDto, UpdateProfileDto } from './account.dto';

const INVITATION_TTL_MS = 72 * 3_600_000;
const PASSWORD_RESET_TTL_MS = 3_600_000;
const INVALID_LINK = 'token is invalid, expired or already used';

/** The link's token (256 random bits) and what is stored of it. */
function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashOf(token) };
}

function hashOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The account's life by e-mail: users created with a password or invited by a single-use link,
 * invitations accepted, passwords forgotten and reset, one's own profile. Every link is e-mailed
 * as recorded work (MailService) in the transaction that creates it, and stored as a hash only.
 */
@Injectable()
export class AccountsService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(AccountsService.name);
  /** Forgot-password requests, done one after another after their 202 was answered. */
  private resetRequests: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: Database,
    private readonly tokens: AccountTokenRepository,
    private readonly users: UsersService,
    private readonly mail: MailService,
    private readonly auth: AuthTokenService,
    private readonly login: LoginService,
    private readonly apiTokens: ApiTokensService,
    private readonly config: AppConfig,
    private readonly retention: RetentionService,
    private readonly audit: AuditLogService,
  ) {}

  /** Used and expired links are deleted after EVENT_RETENTION, with the other finished records. */
  onModuleInit(): void {
    this.retention.register({ prune: (db, before, limit) => this.tokens.prune(db, before, limit) });
  }

  /** The forgot-password requests already answered are done before the process stops. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.resetRequests;
  }

  /**
   * Creates a user: active with the password given, or invited without one (an invitation
   * e-mailed, or its link answered when no provider is set).
   */
  async createUser(admin: UserRow, dto: CreateUserDto): Promise<InvitedUserResponse> {
    const passwordHash = dto.password === undefined ? null : await hashPassword(dto.password, this.config.passwordHashCost);
    const { user, inviteUrl } = await this.database.transaction(async (db) => {
      const created = await this.users.add(db, {
        email: dto.email,
        name: dto.name,
        role: dto.role,
        beta_access: dto.beta_access ?? false,
        passwordHash,
        inboxIds: dto.inbox_ids?.map((publicId) => parsePublicId('inb', publicId)!),
      });
      await this.audit.record(db, created.status === 'invited' ? 'user.invited' : 'user.created', {
        target: toPublicId('user', created.id),
        details: { email: created.email, role: created.role },
      });
      return { user: created, inviteUrl: created.status === 'invited' ? await this.sendInvitation(db, created, admin) : null };
    });
    return this.invitedUserResponse(user, inviteUrl);
  }

  /** A fresh invitation for a user who has not accepted yet; the earlier link stops working. */
  async reinvite(admin: UserRow, userId: string): Promise<InvitedUserResponse> {
    const { user, inviteUrl } = await this.database.transaction(async (db) => {
      const found = await this.users.find(db, userId, true);
      if (!found) throw new NotFoundException('User not found');
      if (found.status !== 'invited') throw new UnprocessableEntityException('The user has accepted their invitation already');
      await this.audit.record(db, 'user.invited', { target: toPublicId('user', found.id), details: { email: found.email, again: true } });
      return { user: found, inviteUrl: await this.sendInvitation(db, found, admin) };
    });
    return this.invitedUserResponse(user, inviteUrl);
  }

  /** The invited user chooses their password (and name): they are active, and logged in. */
  async acceptInvitation(dto: AcceptInvitationDto): Promise<LoginResponse> {
    const passwordHash = await hashPassword(dto.password, this.config.passwordHashCost);
    const user = await this.database.transaction(async (db) => {
      const link = await this.tokens.consume(db, hashOf(dto.token), 'invitation');
      const invited = link && (await this.users.find(db, link.user_id, true));
      // Sent to another address than the user's now (the admin corrected a typo): not theirs to accept.
      if (!invited || invited.status !== 'invited' || invited.email !== link.sent_to) throw new BadRequestException(INVALID_LINK);
      await this.audit.record(db, 'invitation.accepted', {
        actor: { id: invited.id, email: invited.email },
        target: toPublicId('user', invited.id),
      });
      return this.users.activate(db, invited, passwordHash, dto.name);
    });
    await this.users.forget(user.id);
    return this.auth.sessionFor(user);
  }

  /**
   * Answers at once and does the work afterwards, one request after another: whether the address
   * is known changes neither the answer nor its timing. A known, active user gets a reset link;
   * anyone else nothing.
   */
  requestPasswordReset(email: string): void {
    this.resetRequests = this.resetRequests.then(() =>
      this.sendPasswordReset(email).catch((error: unknown) =>
        this.logger.warn(`A password reset request could not be handled: ${(error as Error).message}`),
      ),
    );
  }

  /** A new password through a reset link: every token of the user, on every replica, stops working. */
  async resetPassword(dto: ResetPasswordDto): Promise<void> {
    const passwordHash = await hashPassword(dto.password, this.config.passwordHashCost);
    const { user, revoked } = await this.database.transaction(async (db) => {
      const link = await this.tokens.consume(db, hashOf(dto.token), 'password_reset');
      const found = link && (await this.users.find(db, link.user_id, true));
      // A password change or logout since the link was sent, or a new address, ends it.
      if (!found || found.status !== 'active' || found.email !== link.sent_to || found.token_version !== link.token_version) {
        throw new BadRequestException(INVALID_LINK);
      }
      await this.audit.record(db, 'password.reset', { actor: { id: found.id, email: found.email }, target: toPublicId('user', found.id) });
      // The owner proved themselves by e-mail: a lockout of their account ends too.
      await this.login.clearLoginFailures(db, found.id);
      const revokedTokens = await this.apiTokens.revokeAllIn(db, found.id, 'password_reset');
      return { user: await this.users.changePassword(db, found, passwordHash), revoked: revokedTokens };
    });
    await this.apiTokens.announceRevoked(revoked);
    await this.users.forget(user.id);
  }

  /** The caller's own record. */
  me(user: UserRow): MeResponse {
    return MeResponse.of(user, this.users.secondFactorRequired(user));
  }

  /** One's own name, notification e-mails, availability and password; a new password needs the current one and revokes every earlier token. */
  async updateProfile(caller: UserRow, dto: UpdateProfileDto): Promise<ProfileResponse> {
    if (dto.name === undefined && dto.password === undefined && dto.email_notifications === undefined && dto.availability === undefined) {
      throw new BadRequestException('Body must set at least one of name, password, email_notifications, availability');
    }
    if ((dto.password === undefined) !== (dto.current_password === undefined)) {
      throw new BadRequestException(
        dto.password === undefined
          ? 'current_password is only needed with password'
          : 'current_password is required to change the password',
      );
    }
    let passwordHash: string | undefined;
    if (dto.password !== undefined) {
      if (!(await this.users.checkPassword(caller, dto.current_password!)))
        throw new UnprocessableEntityException('current_password is incorrect');
      passwordHash = await hashPassword(dto.password, this.config.passwordHashCost);
    }
    const user = await this.database.transaction(async (db) => {
      const current = await this.users.find(db, caller.id, true);
      if (!current) throw new NotFoundException('User not found');
      if (passwordHash !== undefined) await this.audit.record(db, 'password.changed', { target: toPublicId('user', current.id) });
      return this.users.updateProfile(db, current, {
        name: dto.name,
        email_notifications: dto.email_notifications,
        passwordHash,
        availability: dto.availability,
      });
    });
    await this.users.forget(user.id);
    const me = this.me(user);
    if (passwordHash === undefined) return me;
    const { token, expires_at } = this.auth.sessionFor(user);
    return { ...me, token, expires_at };
  }

  private async sendPasswordReset(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user || user.status !== 'active') return;
    await this.database.transaction(async (db) => {
      const url = await this.newLink(db, user, 'password_reset', PASSWORD_RESET_TTL_MS, '/reset-password');
      await this.mail.enqueue(db, { userId: user.id, kind: 'password_reset', to: user.email, content: passwordResetEmail(user, url) });
    });
  }

  /** In the caller's transaction: a new invitation link for the user, e-mailed; answers the link. */
  private async sendInvitation(db: Db, user: UserRow, invitedBy: UserRow): Promise<string> {
    const url = await this.newLink(db, user, 'invitation', INVITATION_TTL_MS, '/accept-invite');
    await this.mail.enqueue(db, { userId: user.id, kind: 'invitation', to: user.email, content: invitationEmail(user, invitedBy, url) });
    return url;
  }

  /** A new single-use link of this purpose, the user's earlier unused ones revoked; answers `<APP_URL><path>?token=…`. */
  private async newLink(db: Db, user: UserRow, purpose: AccountTokenPurpose, ttlMs: number, path: string): Promise<string> {
    await this.tokens.revokeUnused(db, user.id, purpose);
    const { token, hash } = newLinkToken();
    const now = new Date();
    await this.tokens.insert(db, {
      id: newUuid(now.getTime()),
      user_id: user.id,
      purpose,
      token_hash: hash,
      sent_to: user.email,
      token_version: user.token_version,
      expires_at: new Date(now.getTime() + ttlMs),
      used_at: null,
      created_at: now,
    });
    return `${this.config.appUrl}${path}?token=${token}`;
  }

  /** After the commit: the e-mail handed on, and the link answered only while no provider would deliver it. */
  private invitedUserResponse(user: UserRow, inviteUrl: string | null): InvitedUserResponse {
    return { ...UserResponse.of(user), ...(inviteUrl !== null && !this.mail.delivers ? { invite_url: inviteUrl } : {}) };
  }
}

import {
  ConflictException,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
  UnprocessableEntityException,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AuditLogService } from '../audit/audit-log.service';
import { ExpiringCache } from '../common/expiring-cache';
import { DEFAULT_INBOX_ID } from '../common/default-inbox';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { mapPage, Page, PageQuery } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { Broadcast } from '../queue/broadcast';
import { isForeignKeyViolation, isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from './password';
import { UpdateUserDto, UserResponse } from './user.dto';
import type { Availability, EmailNotifications, UserRole, UserRow } from './user.entity';
import { UserRepository } from './user.repository';
import { AdminPasswordFile, FirstRunAdmin } from './first-run-admin';

/**
 * How long a user looked up for authentication is trusted without asking the database again.
 * Every instance forgets a user the moment one of them changes it (a broadcast); this bounds the
 * staleness only when a broadcast is lost (Redis down).
 */
const AUTH_CACHE_TTL_MS = 5_000;
const AUTH_CACHE_MAX_ENTRIES = 10_000;
/** Told of a user who may now see fewer inboxes (left one, or became an agent), in that change's transaction. */
type SightNarrowed = (db: Db, userId: string) => Promise<void>;

/** An inbox id of inbox_ids that names no inbox (the membership's foreign key). */
const NO_SUCH_INBOX = 'inbox_ids names an inbox that does not exist';
/** Carries the id of a user whose tokens or rights changed (deleted, demoted, new password, logout). */
const USER_CHANGED = 'user.changed';

/** A user to add: with a password hash (active at once), or without (invited). */
export interface NewUser {
  email: string;
  name: string;
  role: UserRole;
  beta_access: boolean;
  /** Null: the user is invited and sets a password when accepting. */
  passwordHash: string | null;
  /** The password was generated here: the console asks for a new one. */
  passwordChangeRequired?: boolean;
  /** The inboxes they work; default: the default inbox. */
  inboxIds?: readonly string[];
}

/** One's own changes (PATCH /api/v1/me). */
export interface ProfileChanges {
  name?: string;
  email_notifications?: EmailNotifications;
  /** A new password, already hashed: every token issued before stops working. */
  passwordHash?: string;
  availability?: Availability;
}

@Injectable()
export class UsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(UsersService.name);
  private readonly authCache = new ExpiringCache<UserRow>(AUTH_CACHE_MAX_ENTRIES);
  private readonly adminPasswordFile: AdminPasswordFile;
  /** The admin this start made with a generated password, for the start-up banner; null when none was made. */
  firstRunAdmin: FirstRunAdmin | null = null;

  private readonly narrowedListeners: SightNarrowed[] = [];

  constructor(
    private readonly database: Database,
    private readonly users: UserRepository,
    private readonly config: AppConfig,
    private readonly broadcast: Broadcast,
    private readonly audit: AuditLogService,
  ) {
    broadcast.subscribe(USER_CHANGED, (id) => this.authCache.delete(id));
    this.adminPasswordFile = new AdminPasswordFile(config.dataDir);
  }

  /** Creates the first admin when the database has no user yet (see the README, "First start"). */
  async onApplicationBootstrap(): Promise<void> {
    if ((await this.users.count(this.database.db)) > 0) return;
    const generated = this.config.adminEmail === null || this.config.adminPassword === null;
    if (generated && this.config.isProduction) {
      throw new Error('ADMIN_EMAIL and ADMIN_PASSWORD must be set to create the first admin: the database has no user');
    }
    const email = generated ? 'admin@localhost' : this.config.adminEmail!;
    const password = generated ? randomBytes(12).toString('base64url') : this.config.adminPassword!;
    // The file first: a start that cannot write it stops before the admin exists, rather than
    // leave an admin whose generated password nobody saw.
    const firstRunAdmin = generated ? this.adminPasswordFile.write(email, password) : null;
    try {
      await this.add(this.database.db, {
        email,
        name: 'Admin',
        role: 'admin',
        beta_access: true,
        passwordHash: await hashPassword(password, this.config.passwordHashCost),
        passwordChangeRequired: generated,
      });
    } catch (error) {
      if (firstRunAdmin) this.adminPasswordFile.forget(email);
      // Another replica starting at the same moment created it first.
      if (!(error instanceof ConflictException)) throw error;
      return;
    }
    if (firstRunAdmin) {
      this.firstRunAdmin = firstRunAdmin;
      this.logger.warn(`No user existed, so an admin was created: ${email}, its one-time password in ${firstRunAdmin.file}`);
    }
  }

  /**
   * The user behind a token, or null when deleted. On the path of every request, so kept for a
   * few seconds (the bench measured the lookup as the largest cost of an authenticated request).
   */
  async findForAuth(id: string): Promise<UserRow | null> {
    const cached = this.authCache.get(id);
    if (cached) return cached;
    const user = await this.users.find(this.database.db, id);
    if (user) this.authCache.set(id, user, Date.now() + AUTH_CACHE_TTL_MS);
    else this.authCache.delete(id);
    return user;
  }

  /** Whether REQUIRE_2FA covers the user and they have no second factor yet: they may only enrol until they do. */
  secondFactorRequired(user: UserRow): boolean {
    const covered = this.config.require2fa === 'all' || (this.config.require2fa === 'admins' && user.role === 'admin');
    return covered && !user.two_factor_enabled;
  }

  /**
   * Whether `password` is the user's current one. An unknown e-mail (null) or an invited user (who
   * has no password yet) costs as much time as a wrong password and answers the same.
   */
  checkPassword(user: UserRow | null, password: string): Promise<boolean> {
    return verifyPassword(password, user?.password_hash ?? decoyPasswordHash(this.config.passwordHashCost));
  }

  /**
   * After a successful login: a hash made with weaker parameters than today's (PASSWORD_HASH_COST,
   * the scrypt parallelism) is made again from the password just checked, so raising the cost
   * reaches every account as its owner logs in.
   */
  async upgradePasswordHash(user: UserRow, password: string): Promise<void> {
    if (user.password_hash === null || !needsRehash(user.password_hash, this.config.passwordHashCost)) return;
    await this.users.updatePasswordHash(
      this.database.db,
      user.id,
      user.password_hash,
      await hashPassword(password, this.config.passwordHashCost),
    );
    await this.forget(user.id);
  }

  /** In the caller's transaction, invalidates every token issued to the user so far; the caller forgets the user after its commit. */
  revokeTokensIn(db: Db, user: UserRow): Promise<void> {
    return this.users.incrementTokenVersion(db, user.id);
  }

  /** Whether a user exists, inside the caller's transaction (an assignee, for instance). */
  exists(db: Db, id: string): Promise<boolean> {
    return this.users.exists(db, id);
  }

  /** The team as `caller` may see it: an agent sees no one's lockout or second factor but their own. */
  async list(caller: UserRow, query: PageQuery): Promise<Page<UserResponse>> {
    return mapPage(await this.users.list(this.database.db, query), (user) => UserResponse.of(user, seesSecurityOf(caller, user)));
  }

  async get(caller: UserRow, id: string): Promise<UserResponse> {
    const user = await this.users.find(this.database.db, id);
    if (!user) throw new NotFoundException('User not found');
    return UserResponse.of(user, seesSecurityOf(caller, user));
  }

  /** The user, inside the caller's transaction (`lock`: until it ends); null when unknown. */
  find(db: Db, id: string, lock = false): Promise<UserRow | null> {
    return this.users.find(db, id, lock);
  }

  findByEmail(email: string): Promise<UserRow | null> {
    return this.users.findByEmail(this.database.db, email.trim().toLowerCase());
  }

  /** Adds a user in the caller's transaction; a taken e-mail is a 409 (the transaction is then spoiled: the caller lets it roll back). */
  async add(db: Db, user: NewUser): Promise<UserRow> {
    const now = new Date();
    const row: UserRow = {
      id: newUuid(now.getTime()),
      email: user.email.trim().toLowerCase(),
      name: user.name,
      role: user.role,
      password_hash: user.passwordHash,
      beta_access: user.beta_access,
      token_version: 0,
      status: user.passwordHash === null ? 'invited' : 'active',
      email_notifications: 'immediate',
      password_change_required: user.passwordChangeRequired ?? false,
      two_factor_enabled: false,
      locked_until: null,
      inbox_ids: [...new Set(user.inboxIds ?? [DEFAULT_INBOX_ID])].sort(),
      availability: 'offline',
      availability_changed_at: null,
      last_present_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.users.insert(db, row);
      await this.users.setInboxes(db, row.id, row.inbox_ids);
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new ConflictException('A user with this email already exists');
      if (isForeignKeyViolation(error)) throw new UnprocessableEntityException(NO_SUCH_INBOX);
      throw error;
    }
    return row;
  }

  /** An invited user accepts: their password, and their name if given; they are active from now on. The caller forgets them after its commit. */
  async activate(db: Db, user: UserRow, passwordHash: string, name?: string): Promise<UserRow> {
    return this.save(db, {
      ...user,
      status: 'active',
      password_hash: passwordHash,
      name: name ?? user.name,
      token_version: user.token_version + 1,
    });
  }

  /** A new password: every token issued before stops working. The caller forgets the user after its commit. */
  async changePassword(db: Db, user: UserRow, passwordHash: string): Promise<UserRow> {
    const saved = await this.save(db, {
      ...user,
      password_hash: passwordHash,
      token_version: user.token_version + 1,
      password_change_required: false,
    });
    this.adminPasswordFile.forget(user.email);
    return saved;
  }

  /** One's own name, notification e-mails and password; a new password revokes every token issued before. */
  async updateProfile(db: Db, user: UserRow, changes: ProfileChanges): Promise<UserRow> {
    if (changes.passwordHash !== undefined) this.adminPasswordFile.forget(user.email);
    if (changes.availability !== undefined) {
      // Choosing online again is being present again, even when it was already chosen.
      await this.users.setAvailability(db, user.id, changes.availability);
      user = { ...user, availability: changes.availability };
    }
    return this.save(db, {
      ...user,
      name: changes.name ?? user.name,
      email_notifications: changes.email_notifications ?? user.email_notifications,
      ...(changes.passwordHash === undefined
        ? {}
        : { password_hash: changes.passwordHash, token_version: user.token_version + 1, password_change_required: false }),
    });
  }

  async update(id: string, dto: UpdateUserDto): Promise<UserResponse> {
    try {
      return await this.database.transaction(async (db) => {
        const user = await this.users.find(db, id, true);
        if (!user) throw new NotFoundException('User not found');
        if (user.role === 'admin' && dto.role === 'agent') await this.assertAnotherAdmin(db, id);
        const before = { ...user };
        Object.assign(user, {
          email: dto.email ?? user.email,
          name: dto.name ?? user.name,
          role: dto.role ?? user.role,
          beta_access: dto.beta_access ?? user.beta_access,
          updated_at: new Date(),
        });
        if (dto.password !== undefined) {
          user.password_hash = await hashPassword(dto.password, this.config.passwordHashCost);
          user.token_version += 1;
          // An admin who sets an invited user's password lets them in without the invitation.
          user.status = 'active';
        }
        await this.users.update(db, user);
        if (dto.inbox_ids !== undefined) {
          user.inbox_ids = [...new Set(dto.inbox_ids.map((publicId) => parsePublicId('inb', publicId)!))].sort();
          await this.users.setInboxes(db, id, user.inbox_ids);
        }
        const changed = (['email', 'name', 'role', 'beta_access', 'password_hash', 'inbox_ids'] as const).filter(
          (key) => JSON.stringify(before[key]) !== JSON.stringify(user[key]),
        );
        if (changed.includes('role') || changed.includes('inbox_ids')) await this.sightNarrowed(db, id);
        await this.audit.record(db, changed.includes('role') ? 'user.role_changed' : 'user.updated', {
          target: toPublicId('user', id),
          details: {
            changed: changed.map((key) => (key === 'password_hash' ? 'password' : key)),
            ...(changed.includes('role') ? { role: { from: before.role, to: user.role } } : {}),
          },
        });
        return UserResponse.of(user);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new ConflictException('A user with this email already exists');
      if (isForeignKeyViolation(error)) throw new UnprocessableEntityException(NO_SUCH_INBOX);
      throw error;
    } finally {
      await this.forget(id);
    }
  }

  async remove(id: string): Promise<void> {
    await this.database.transaction(async (db) => {
      const user = await this.users.find(db, id, true);
      if (!user) throw new NotFoundException('User not found');
      if (user.role === 'admin') await this.assertAnotherAdmin(db, id);
      await this.users.delete(db, id);
      await this.audit.record(db, 'user.deleted', { target: toPublicId('user', id), details: { email: user.email, role: user.role } });
    });
    await this.forget(id);
  }

  /** The router gave them a conversation at `at`, in the router's transaction. */
  markAssigned(db: Db, id: string, at: Date): Promise<void> {
    return this.users.markAssigned(db, id, at);
  }

  /**
   * The agents `online` without an event stream for `timeoutMs` (they closed the console, or their
   * connection died) become `offline` from when they were last present; every instance forgets
   * them. Answers their ids.
   */
  async timeOutAbsent(timeoutMs: number): Promise<string[]> {
    const ids = await this.users.timeOutAbsent(this.database.db, timeoutMs);
    for (const id of ids) await this.forget(id);
    return ids;
  }

  /** Calls `listener` with the id of every user changed, on every instance, after the change's commit. */
  onChanged(listener: (userId: string) => void): void {
    this.broadcast.subscribe(USER_CHANGED, listener);
  }

  /** Every instance, this one at once, drops the user's cached record: its next request reads the change. After the commit that changed it. */
  /** The users of an inbox (uuids), oldest first. */
  membersOf(db: Db, inboxId: string): Promise<string[]> {
    return this.users.membersOf(db, inboxId);
  }

  /**
   * Replaces an inbox's users in the caller's transaction (422 for an id that names no user);
   * answers who joined and who left, whom the caller forgets after its commit (their streams then
   * reconnect with their new inboxes).
   */
  /** A listener told, in the transaction that made the change, of a user who may now see fewer inboxes. */
  whenSightNarrowed(listener: SightNarrowed): void {
    this.narrowedListeners.push(listener);
  }

  async setMembersOf(db: Db, inboxId: string, userIds: readonly string[]): Promise<{ added: string[]; removed: string[] }> {
    try {
      const changed = await this.users.setMembersOf(db, inboxId, [...new Set(userIds)]);
      for (const userId of changed.removed) await this.sightNarrowed(db, userId);
      return changed;
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new UnprocessableEntityException('user_ids names a user that does not exist');
      throw error;
    }
  }

  private async sightNarrowed(db: Db, userId: string): Promise<void> {
    for (const listener of this.narrowedListeners) await listener(db, userId);
  }

  async forget(id: string): Promise<void> {
    this.authCache.delete(id);
    await this.broadcast.publish(USER_CHANGED, id);
  }

  /** Locks the admins so two concurrent demotions cannot both pass and leave none. */
  private async assertAnotherAdmin(db: Db, exceptId: string): Promise<void> {
    const admins = await this.users.lockAdmins(db);
    if (!admins.some((adminId) => adminId !== exceptId)) {
      throw new UnprocessableEntityException('The last admin cannot be removed or demoted');
    }
  }

  private async save(db: Db, user: UserRow): Promise<UserRow> {
    const saved = { ...user, updated_at: new Date() };
    await this.users.update(db, saved);
    return saved;
  }
}

function seesSecurityOf(caller: UserRow, user: UserRow): boolean {
  return caller.role === 'admin' || caller.id === user.id;
}

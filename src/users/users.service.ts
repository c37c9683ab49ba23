import {
  ConflictException,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
  UnprocessableEntityException,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { newUuid } from '../common/ids';
import { mapPage, Page, PageQuery } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { Broadcast } from '../queue/broadcast';
import { isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { decoyPasswordHash, hashPassword, verifyPassword } from './password';
import { UpdateUserDto, UserResponse } from './user.dto';
import type { EmailNotifications, UserRole, UserRow } from './user.entity';
import { UserRepository } from './user.repository';

/**
 * How long a user looked up for authentication is trusted without asking the database again.
 * Every instance forgets a user the moment one of them changes it (a broadcast); this bounds the
 * staleness only when a broadcast is lost (Redis down).
 */
const AUTH_CACHE_TTL_MS = 5_000;
const AUTH_CACHE_MAX_ENTRIES = 10_000;
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
}

/** One's own changes (PATCH /api/v1/me). */
export interface ProfileChanges {
  name?: string;
  email_notifications?: EmailNotifications;
  /** A new password, already hashed: every token issued before stops working. */
  passwordHash?: string;
}

@Injectable()
export class UsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(UsersService.name);
  private readonly authCache = new Map<string, { user: UserRow; expiresAt: number }>();

  constructor(
    private readonly database: Database,
    private readonly users: UserRepository,
    private readonly config: AppConfig,
    private readonly broadcast: Broadcast,
  ) {
    broadcast.subscribe(USER_CHANGED, (id) => this.authCache.delete(id));
  }

  /** Creates the first admin when the database has no user yet (see the README, "First start"). */
  async onApplicationBootstrap(): Promise<void> {
    if ((await this.users.count(this.database.db)) > 0) return;
    let email = this.config.adminEmail;
    let password = this.config.adminPassword;
    if (email === null || password === null) {
      if (this.config.isProduction) {
        throw new Error('ADMIN_EMAIL and ADMIN_PASSWORD must be set to create the first admin: the database has no user');
      }
      email = 'admin@localhost';
      password = randomBytes(12).toString('base64url');
      this.logger.warn(`No user existed, so an admin was created: ${email} with the one-time password ${password} (change it)`);
    }
    try {
      await this.add(this.database.db, {
        email,
        name: 'Admin',
        role: 'admin',
        beta_access: true,
        passwordHash: await hashPassword(password, this.config.passwordHashCost),
      });
    } catch (error) {
      // Another replica starting at the same moment created it first.
      if (!(error instanceof ConflictException)) throw error;
    }
  }

  /**
   * The user behind a token, or null when deleted. On the path of every request, so kept for a
   * few seconds (the bench measured the lookup as the largest cost of an authenticated request).
   */
  async findForAuth(id: string): Promise<UserRow | null> {
    const cached = this.authCache.get(id);
    if (cached && cached.expiresAt > Date.now()) return cached.user;
    const user = await this.users.find(this.database.db, id);
    this.authCache.delete(id);
    if (user) {
      if (this.authCache.size >= AUTH_CACHE_MAX_ENTRIES) this.authCache.delete(this.authCache.keys().next().value!);
      this.authCache.set(id, { user, expiresAt: Date.now() + AUTH_CACHE_TTL_MS });
    }
    return user;
  }

  /**
   * The active user with this e-mail and password, or null; an unknown e-mail, or an invited user
   * (who has no password yet), costs as much time as a wrong password and answers the same.
   */
  async authenticate(email: string, password: string): Promise<UserRow | null> {
    const user = await this.users.findByEmail(this.database.db, email.trim().toLowerCase());
    const valid = await verifyPassword(password, user?.password_hash ?? decoyPasswordHash(this.config.passwordHashCost));
    return valid && user?.status === 'active' ? user : null;
  }

  /** Whether `password` is the user's current one (an invited user has none). */
  checkPassword(user: UserRow, password: string): Promise<boolean> {
    return verifyPassword(password, user.password_hash ?? decoyPasswordHash(this.config.passwordHashCost));
  }

  /** Invalidates every token issued to the user so far. */
  async revokeTokens(user: UserRow): Promise<void> {
    await this.users.incrementTokenVersion(this.database.db, user.id);
    await this.forget(user.id);
  }

  /** Whether a user exists, inside the caller's transaction (an assignee, for instance). */
  exists(db: Db, id: string): Promise<boolean> {
    return this.users.exists(db, id);
  }

  async list(query: PageQuery): Promise<Page<UserResponse>> {
    return mapPage(await this.users.list(this.database.db, query), UserResponse.of);
  }

  async get(id: string): Promise<UserResponse> {
    const user = await this.users.find(this.database.db, id);
    if (!user) throw new NotFoundException('User not found');
    return UserResponse.of(user);
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
      created_at: now,
      updated_at: now,
    };
    try {
      await this.users.insert(db, row);
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new ConflictException('A user with this email already exists');
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
    return this.save(db, { ...user, password_hash: passwordHash, token_version: user.token_version + 1 });
  }

  /** One's own name, notification e-mails and password; a new password revokes every token issued before. */
  async updateProfile(db: Db, user: UserRow, changes: ProfileChanges): Promise<UserRow> {
    return this.save(db, {
      ...user,
      name: changes.name ?? user.name,
      email_notifications: changes.email_notifications ?? user.email_notifications,
      ...(changes.passwordHash === undefined ? {} : { password_hash: changes.passwordHash, token_version: user.token_version + 1 }),
    });
  }

  async update(id: string, dto: UpdateUserDto): Promise<UserResponse> {
    try {
      return await this.database.transaction(async (db) => {
        const user = await this.users.find(db, id, true);
        if (!user) throw new NotFoundException('User not found');
        if (user.role === 'admin' && dto.role === 'agent') await this.assertAnotherAdmin(db, id);
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
        return UserResponse.of(user);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new ConflictException('A user with this email already exists');
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
    });
    await this.forget(id);
  }

  /** Every instance, this one at once, drops the user's cached record: its next request reads the change. After the commit that changed it. */
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

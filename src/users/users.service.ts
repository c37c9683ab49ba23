import { Injectable, Logger, NotFoundException, OnApplicationBootstrap, UnprocessableEntityException, ConflictException } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { DECOY_PASSWORD_HASH, hashPassword, verifyPassword } from '../auth/password';
import { newUuid } from '../common/ids';
import { decodeCursor, Page, PageQuery, toPage } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/errors';
import { CreateUserDto, UpdateUserDto, UserResponse } from './user.dto';
import { User } from './user.entity';

/**
 * How long a user looked up for authentication is trusted without asking the database again.
 * This instance forgets a user the moment it changes them; other replicas within this time.
 */
const AUTH_CACHE_TTL_MS = 5_000;
const AUTH_CACHE_MAX_ENTRIES = 10_000;

@Injectable()
export class UsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(UsersService.name);
  private readonly authCache = new Map<string, { user: User; expiresAt: number }>();

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Creates the first admin when the database has no user yet (see the README, "First start"). */
  async onApplicationBootstrap(): Promise<void> {
    if ((await this.users.count()) > 0) return;
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
      await this.insert({ email, password, name: 'Admin', role: 'admin', beta_access: true });
    } catch (error) {
      // Another replica starting at the same moment created it first.
      if (!isUniqueViolation(error)) throw error;
    }
  }

  /**
   * The user behind a token, or null when deleted. On the path of every request, so kept for a
   * few seconds (the bench measured the lookup as the largest cost of an authenticated request).
   */
  async findForAuth(id: string): Promise<User | null> {
    const cached = this.authCache.get(id);
    if (cached && cached.expiresAt > Date.now()) return cached.user;
    const user = await this.users.findOneBy({ id });
    this.authCache.delete(id);
    if (user) {
      if (this.authCache.size >= AUTH_CACHE_MAX_ENTRIES) this.authCache.delete(this.authCache.keys().next().value!);
      this.authCache.set(id, { user, expiresAt: Date.now() + AUTH_CACHE_TTL_MS });
    }
    return user;
  }

  /** The user with this e-mail and password, or null; an unknown e-mail costs as much time as a wrong password. */
  async authenticate(email: string, password: string): Promise<User | null> {
    const user = await this.users.findOneBy({ email: email.trim().toLowerCase() });
    const valid = await verifyPassword(password, user?.passwordHash ?? DECOY_PASSWORD_HASH);
    return valid && user ? user : null;
  }

  /** Invalidates every token issued to the user so far. */
  async revokeTokens(user: User): Promise<void> {
    await this.users.increment({ id: user.id }, 'tokenVersion', 1);
    this.authCache.delete(user.id);
  }

  async list(query: PageQuery): Promise<Page<UserResponse>> {
    const builder = this.users.createQueryBuilder('u').orderBy('u.created_at', 'ASC').addOrderBy('u.id', 'ASC').limit(query.limit + 1);
    if (query.cursor) {
      const [createdAt, id] = decodeCursor(query.cursor, ['timestamp', 'uuid']);
      builder.where('(u.created_at, u.id) > (:createdAt, :id)', { createdAt, id });
    }
    const rows = await builder.getMany();
    return toPage(rows, query.limit, (u) => [u.createdAt.toISOString(), u.id], UserResponse.of);
  }

  async get(id: string): Promise<User> {
    const user = await this.users.findOneBy({ id });
    if (!user) throw new NotFoundException('User not found');
    return user;
  }

  async create(dto: CreateUserDto): Promise<User> {
    try {
      return await this.insert(dto);
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new ConflictException('A user with this email already exists');
      throw error;
    }
  }

  async update(id: string, dto: UpdateUserDto): Promise<User> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const user = await manager.findOne(User, { where: { id }, lock: { mode: 'pessimistic_write' } });
        if (!user) throw new NotFoundException('User not found');
        if (user.role === 'admin' && dto.role === 'agent') await this.assertAnotherAdmin(manager, id);
        Object.assign(user, {
          email: dto.email ?? user.email,
          name: dto.name ?? user.name,
          role: dto.role ?? user.role,
          betaAccess: dto.beta_access ?? user.betaAccess,
          updatedAt: new Date(),
        });
        if (dto.password !== undefined) {
          user.passwordHash = await hashPassword(dto.password);
          user.tokenVersion += 1;
        }
        return manager.save(user);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new ConflictException('A user with this email already exists');
      throw error;
    } finally {
      this.authCache.delete(id);
    }
  }

  async remove(id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const user = await manager.findOne(User, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!user) throw new NotFoundException('User not found');
      if (user.role === 'admin') await this.assertAnotherAdmin(manager, id);
      await manager.delete(User, { id });
    });
    this.authCache.delete(id);
  }

  /** Locks the admins so two concurrent demotions cannot both pass and leave none. */
  private async assertAnotherAdmin(manager: EntityManager, exceptId: string): Promise<void> {
    const admins: { id: string }[] = await manager.query(`SELECT id FROM users WHERE role = 'admin' FOR UPDATE`);
    if (!admins.some((admin) => admin.id !== exceptId)) {
      throw new UnprocessableEntityException('The last admin cannot be removed or demoted');
    }
  }

  private async insert(dto: CreateUserDto): Promise<User> {
    const now = new Date();
    const user = this.users.create({
      id: newUuid(now.getTime()),
      email: dto.email.toLowerCase(),
      name: dto.name,
      role: dto.role,
      passwordHash: await hashPassword(dto.password),
      betaAccess: dto.beta_access ?? false,
      tokenVersion: 0,
      createdAt: now,
      updatedAt: now,
    });
    await this.users.insert(user);
    return user;
  }
}

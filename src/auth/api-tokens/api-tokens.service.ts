import { BadRequestException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { AuditLogService } from '../../audit/audit-log.service';
import { ExpiringCache } from '../../common/expiring-cache';
import { newUuid, toPublicId } from '../../common/ids';
import { mapPage, type Page, type PageQuery } from '../../common/pagination';
import { Database } from '../../database/database';
import type { Db } from '../../database/sql';
import { Broadcast } from '../../queue/broadcast';
import type { UserRow } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import type { ApiTokenRow } from './api-token.entity';
import { ApiTokenRepository } from './api-token.repository';
import { ApiTokenResponse, CreateApiTokenDto, CreatedApiTokenResponse } from './api-token.dto';

/** The secrets' prefix: tells them from access tokens at a glance, and lets secret scanners find them. */
export const API_TOKEN_PREFIX = 'tinbox_';
/** A token is looked up again after this long (every instance forgets a revoked one at once; this bounds a lost broadcast). */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;
/** last_used_at is written at most this often per token and instance, not on every request. */
const TOUCH_EVERY_MS = 60_000;
/** Carries the id and hash of a revoked token. */
const TOKEN_REVOKED = 'api-token.revoked';

/**
 * API tokens for integrations: bearer credentials acting as their owner (their role, their rate
 * limit), stored as SHA-256 hashes (the secret has 256 random bits: no slow hash needed), the
 * secret shown once. Each use from an address the token was never used from is in the audit log.
 */
@Injectable()
export class ApiTokensService {
  private readonly logger = new Logger(ApiTokensService.name);
  /** By hash of the secret (authentication) and by id (an open stream's check), each entry for a few seconds. */
  private readonly cache = new ExpiringCache<ApiTokenRow | null>(CACHE_MAX_ENTRIES);
  /** The address each token was last noted from, until its next note is due. */
  private readonly touched = new ExpiringCache<string>(CACHE_MAX_ENTRIES);

  constructor(
    private readonly database: Database,
    private readonly tokens: ApiTokenRepository,
    private readonly audit: AuditLogService,
    private readonly broadcast: Broadcast,
    private readonly users: UsersService,
  ) {
    broadcast.subscribe(TOKEN_REVOKED, (message) => this.forget(message.split(' ')));
  }

  /** Whether a bearer credential is an API token's secret (rather than an access token). */
  static isApiToken(bearer: string): boolean {
    return bearer.startsWith(API_TOKEN_PREFIX);
  }

  async create(owner: UserRow, dto: CreateApiTokenDto): Promise<CreatedApiTokenResponse> {
    const now = new Date();
    const expiresAt = dto.expires_at === undefined ? null : new Date(dto.expires_at);
    if (expiresAt !== null && expiresAt <= now) throw new BadRequestException('expires_at must be in the future');
    const secret = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const row: ApiTokenRow = {
      id: newUuid(now.getTime()),
      user_id: owner.id,
      name: dto.name,
      token_hash: hashOf(secret),
      created_at: now,
      expires_at: expiresAt,
      last_used_at: null,
      last_used_ip: null,
    };
    await this.database.transaction(async (db) => {
      await this.tokens.insert(db, row);
      await this.audit.record(db, 'api_token.created', {
        target: toPublicId('tok', row.id),
        details: { name: row.name, expires_at: expiresAt?.toISOString() ?? null },
      });
    });
    return { ...ApiTokenResponse.of(row), token: secret };
  }

  /** The caller's tokens; an admin's list holds everyone's. */
  async list(caller: UserRow, page: PageQuery): Promise<Page<ApiTokenResponse>> {
    return mapPage(await this.tokens.list(this.database.db, caller.role === 'admin' ? null : caller.id, page), ApiTokenResponse.of);
  }

  /** Revokes a token: the caller's own, or anyone's for an admin. It stops working on every instance at once. */
  async revoke(caller: UserRow, id: string): Promise<void> {
    const revoked = await this.database.transaction(async (db) => {
      const deleted = await this.tokens.delete(db, id, caller.role === 'admin' ? null : caller.id);
      if (!deleted) throw new NotFoundException('API token not found');
      await this.audit.record(db, 'api_token.revoked', {
        target: toPublicId('tok', deleted.id),
        details: { name: deleted.name, owner: toPublicId('user', deleted.user_id) },
      });
      return deleted;
    });
    await this.announceRevoked([revoked]);
  }

  /**
   * In the caller's transaction, revokes every token of the user (their password was reset by
   * e-mail: account recovery assumes whoever had the account may have made tokens); call
   * announceRevoked with the answer after the commit.
   */
  async revokeAllIn(db: Db, userId: string, reason: string): Promise<ApiTokenRow[]> {
    const revoked = await this.tokens.deleteAllOf(db, userId);
    for (const token of revoked) {
      await this.audit.record(db, 'api_token.revoked', { target: toPublicId('tok', token.id), details: { name: token.name, reason } });
    }
    return revoked;
  }

  /** Every instance, this one at once, stops taking the tokens; their owners' open streams check their access again. */
  async announceRevoked(revoked: ApiTokenRow[]): Promise<void> {
    for (const token of revoked) {
      this.forget([token.id, token.token_hash]);
      await this.broadcast.publish(TOKEN_REVOKED, `${token.id} ${token.token_hash}`);
    }
    for (const userId of new Set(revoked.map((token) => token.user_id))) await this.users.forget(userId);
  }

  /** The token a secret is, if it exists and has not expired (looked up at most every few seconds). */
  find(secret: string): Promise<ApiTokenRow | null> {
    const hash = hashOf(secret);
    return this.cached(hash, () => this.tokens.findByHash(this.database.db, hash));
  }

  /** Whether the token still works (not revoked, not expired): an open stream's check. */
  async isActive(id: string): Promise<boolean> {
    return (await this.cached(id, () => this.tokens.find(this.database.db, id))) !== null;
  }

  private async cached(key: string, load: () => Promise<ApiTokenRow | null>): Promise<ApiTokenRow | null> {
    const now = Date.now();
    let row = this.cache.get(key, now);
    if (row === undefined) {
      row = await load();
      this.cache.set(key, row, now + CACHE_TTL_MS);
    }
    return row && (row.expires_at === null || row.expires_at.getTime() > now) ? row : null;
  }

  private forget(keys: string[]): void {
    for (const key of keys) this.cache.delete(key);
  }

  /**
   * Notes a use of the token from `ip` by `owner`: last_used_at (at most once a minute), and an
   * audit entry the first time an address uses it. Never fails the request it is called for.
   */
  async noteUse(tokenId: string, owner: UserRow, ip: string): Promise<void> {
    const now = Date.now();
    if (this.touched.get(tokenId, now) === ip) return;
    this.touched.set(tokenId, ip, now + TOUCH_EVERY_MS);
    try {
      await this.database.transaction(async (db) => {
        await this.tokens.touch(db, tokenId, new Date(now), ip);
        if (await this.tokens.addAddress(db, tokenId, ip, new Date(now))) {
          await this.audit.record(db, 'api_token.used_from_new_address', {
            target: toPublicId('tok', tokenId),
            actor: { id: owner.id, email: owner.email },
            details: { ip },
          });
        }
      });
    } catch (error) {
      this.touched.delete(tokenId);
      this.logger.warn(`Recording a use of API token ${toPublicId('tok', tokenId)} failed: ${(error as Error).message}`);
    }
  }
}

function hashOf(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

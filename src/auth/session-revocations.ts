import { Injectable } from '@nestjs/common';
import { ExpiringCache } from '../common/expiring-cache';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { Broadcast } from '../queue/broadcast';
import { RevokedSessionRepository } from './revoked-session.repository';

/** How long whether a session is revoked is trusted without asking again; every instance learns a revocation at once through the broadcast. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;
const SESSION_REVOKED = 'session.revoked';
/** Expired revocations deleted with each new one: more than one per logout, so the table never grows. */
const PRUNE_PER_REVOCATION = 10;

/**
 * Access tokens revoked one by one (logout revokes the token it is called with, not the user's
 * other devices). A revoked session is kept until its token would have expired.
 */
@Injectable()
export class SessionRevocations {
  private readonly cache = new ExpiringCache<boolean>(CACHE_MAX_ENTRIES);

  constructor(
    private readonly database: Database,
    private readonly revoked: RevokedSessionRepository,
    private readonly broadcast: Broadcast,
  ) {
    broadcast.subscribe(SESSION_REVOKED, (sessionId) => this.remember(sessionId, true));
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    const cached = this.cache.get(sessionId);
    if (cached !== undefined) return cached;
    const revoked = await this.revoked.isRevoked(this.database.db, sessionId);
    this.remember(sessionId, revoked);
    return revoked;
  }

  /** In the caller's transaction; call `announce` after its commit. Sessions that expired since are forgotten on the way (a few per logout). */
  async revoke(db: Db, sessionId: string, expiresAt: Date): Promise<void> {
    await this.revoked.insert(db, sessionId, expiresAt);
    await this.revoked.prune(db, new Date(), PRUNE_PER_REVOCATION);
  }

  /** Every instance, this one at once, refuses the session from now on. */
  async announce(sessionId: string): Promise<void> {
    this.remember(sessionId, true);
    await this.broadcast.publish(SESSION_REVOKED, sessionId);
  }

  private remember(sessionId: string, revoked: boolean): void {
    this.cache.set(sessionId, revoked, Date.now() + CACHE_TTL_MS);
  }
}

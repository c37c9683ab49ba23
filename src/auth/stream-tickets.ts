import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { createHmac, randomBytes } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import type { Access, Credential } from './access';
import { StreamTicketRepository } from './stream-ticket.repository';

/** How long a stream ticket opens a stream: the time a client takes between asking and connecting. */
export const STREAM_TICKET_TTL_S = 60;
/** A used ticket is remembered this long after it expires: longer than the clocks of two replicas may differ. */
const USE_KEPT_PAST_EXPIRY_MS = 5 * 60_000;

/** What a stream ticket carries: the user, the credential it was asked with and when that expires (`ses`), and its own id. */
export interface StreamTicketClaims {
  sub: string;
  cred: Credential;
  /** When the credential the ticket was asked with expires (seconds; 0: never, an API token without expiry): the stream ends then. */
  ses: number;
  jti: string;
}

/**
 * One-time credentials for the event stream's URL (browsers' EventSource cannot send headers): a
 * JWT of a minute, signed with its own key derived from SESSION_SECRET (so a ticket is never an
 * access token, nor the other way round), opening one stream once. A proxy's log of the URL then
 * holds nothing usable, where it used to hold a 12-hour access token.
 */
@Injectable()
export class StreamTickets {
  private readonly key: Buffer;

  constructor(
    private readonly jwt: JwtService,
    private readonly database: Database,
    private readonly uses: StreamTicketRepository,
    config: AppConfig,
  ) {
    this.key = createHmac('sha256', config.sessionSecret).update('team-inbox stream ticket').digest();
  }

  /** A ticket for the access of the request that asks for it, never outliving it. */
  issue(access: Access): { ticket: string; expires_at: string } {
    const ses = Number.isFinite(access.expiresAt) ? Math.floor(access.expiresAt / 1000) : 0;
    const expiresIn = Math.max(1, ses === 0 ? STREAM_TICKET_TTL_S : Math.min(STREAM_TICKET_TTL_S, ses - Math.floor(Date.now() / 1000)));
    const payload: StreamTicketClaims = { sub: access.userId, cred: access.credential, ses, jti: randomBytes(16).toString('base64url') };
    const ticket = this.jwt.sign(payload, { secret: this.key, expiresIn, algorithm: 'HS256' });
    return { ticket, expires_at: new Date(Date.now() + expiresIn * 1000).toISOString() };
  }

  /** The claims of a well-signed, unexpired ticket, used or not (the rate limit counts its user); null otherwise. */
  claimsOf(ticket: string): (StreamTicketClaims & { exp: number }) | null {
    try {
      const payload = this.jwt.verify<Partial<StreamTicketClaims> & { exp: number }>(ticket, { secret: this.key, algorithms: ['HS256'] });
      const { sub, cred, ses, jti, exp } = payload;
      if (typeof sub !== 'string' || typeof cred !== 'object' || typeof ses !== 'number' || typeof jti !== 'string') return null;
      return { sub, cred, ses, jti, exp };
    } catch {
      return null;
    }
  }

  /** Spends a ticket: the access it was asked with the first time, `used` after, null when it is not a valid ticket. */
  async redeem(ticket: string): Promise<Access | 'used' | null> {
    const claims = this.claimsOf(ticket);
    if (!claims) return null;
    // Kept past the ticket's expiry by the clock skew replicas may have, so none of them takes it again.
    const first = await this.uses.recordUse(this.database.db, claims.jti, new Date(claims.exp * 1000 + USE_KEPT_PAST_EXPIRY_MS));
    if (!first) return 'used';
    return { userId: claims.sub, credential: claims.cred, expiresAt: claims.ses === 0 ? Infinity : claims.ses * 1000 };
  }
}

import { CanActivate, ExecutionContext, ForbiddenException, HttpException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiTokensService } from './api-tokens/api-tokens.service';
import { setRequestActor } from '../common/request-context';
import { UsersService } from '../users/users.service';
import { REQUIRED_ROLES, SESSION_ONLY } from '../users/roles.decorator';
import type { UserRole, UserRow } from '../users/user.entity';
import { Access, AccessCheck, accessEnded } from './access';
import { AuthenticatedRequest, ENROLMENT_ROUTE, PUBLIC_ROUTE, SIGNED_URL, STREAM_TICKET } from './auth.decorators';
import { AuthTokenService } from './auth-token.service';
import { SignedUrls } from './signed-urls';
import { StreamTickets } from './stream-tickets';

/**
 * The one guard for who may call what: a valid credential (an access token, an API token, or on
 * the event stream a one-time ticket) whose access still holds (AccessCheck; 401 otherwise), then
 * the route's restrictions (403): API tokens kept off the account's own credentials, a user whom
 * REQUIRE_2FA covers kept to enrolment until they have a second factor, the route's roles. Routes
 * marked @Public skip it; routes marked @AllowSignedUrl also take a valid signed URL.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AuthTokenService,
    private readonly signedUrls: SignedUrls,
    private readonly tickets: StreamTickets,
    private readonly apiTokens: ApiTokensService,
    private readonly accessCheck: AccessCheck,
    private readonly users: UsersService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;

    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (
      this.reflector.getAllAndOverride<boolean>(SIGNED_URL, targets) &&
      !this.tokens.hasBearer(request) &&
      this.signedUrls.carriesSignature(request)
    ) {
      const verdict = this.signedUrls.check(request);
      if (verdict === 'expired') throw new UnauthorizedException('This signed URL has expired; fetch the message again for a fresh one');
      if (verdict === 'unrecognised')
        throw new UnauthorizedException('This signed URL has expired or was signed with an earlier key; reload the page for a fresh one');
      if (verdict === 'invalid') throw new UnauthorizedException('The signature of this URL is invalid');
      return true;
    }
    const access =
      this.reflector.getAllAndOverride<boolean>(STREAM_TICKET, targets) && !this.tokens.hasBearer(request)
        ? await this.ticketAccessOf(request)
        : await this.bearerAccessOf(request);
    const user = await this.userOf(access);

    if (access.credential.kind === 'api_token' && this.reflector.getAllAndOverride<boolean>(SESSION_ONLY, targets)) {
      throw new ForbiddenException(
        'This action needs a login session: API tokens change no credentials (passwords, second factors, API tokens, sessions, users and their access)',
      );
    }
    if (this.users.secondFactorRequired(user) && !this.reflector.getAllAndOverride<boolean>(ENROLMENT_ROUTE, targets)) {
      throw new ForbiddenException(
        'Two-factor login is required for your account: enrol first (POST /api/v1/me/2fa, then /api/v1/me/2fa/enable)',
      );
    }
    const roles = this.reflector.getAllAndOverride<UserRole[] | undefined>(REQUIRED_ROLES, targets);
    if (roles && !roles.includes(user.role)) throw new ForbiddenException(`This action requires the ${roles.join(' or ')} role`);

    request.user = user;
    request.access = access;
    setRequestActor({ id: user.id, email: user.email });
    if (access.credential.kind === 'api_token') await this.apiTokens.noteUse(access.credential.tokenId, user, request.ip);
    return true;
  }

  /** Whether a request to a public route (a probe) comes with a valid admin credential: it may then be told more. Never throws. */
  async isAdmin(request: AuthenticatedRequest): Promise<boolean> {
    try {
      const user = await this.userOf(await this.bearerAccessOf(request));
      return user.role === 'admin';
    } catch (error) {
      if (error instanceof HttpException) return false;
      throw error;
    }
  }

  /** The user whose access still holds, or the refusal. */
  private async userOf(access: Access): Promise<UserRow> {
    const result = await this.accessCheck.check(access);
    if (!accessEnded(result)) return result;
    throw result.status === 403 ? new ForbiddenException(result.reason) : new UnauthorizedException(result.reason);
  }

  private async bearerAccessOf(request: AuthenticatedRequest): Promise<Access> {
    const bearer = this.tokens.bearerOf(request);
    if (bearer === null) throw new UnauthorizedException('Authentication required: send Authorization: Bearer <token>');
    if (ApiTokensService.isApiToken(bearer)) {
      const token = await this.apiTokens.find(bearer);
      if (!token) throw new UnauthorizedException('API token is invalid, expired or revoked');
      return {
        userId: token.user_id,
        credential: { kind: 'api_token', tokenId: token.id },
        expiresAt: token.expires_at?.getTime() ?? Infinity,
      };
    }
    const claims = this.tokens.claimsOf(request);
    if (!claims) throw new UnauthorizedException('Token is invalid or has expired');
    return AuthTokenService.accessOf(claims);
  }

  /** A stream ticket spent, as the access it was asked with. */
  private async ticketAccessOf(request: AuthenticatedRequest): Promise<Access> {
    const { ticket, access_token } = request.query as { ticket?: unknown; access_token?: unknown };
    if (access_token !== undefined) {
      throw new UnauthorizedException(
        'access_token is not taken in a URL: POST /api/v1/events/stream-tickets with the bearer token, then open the stream with ?ticket=<ticket>',
      );
    }
    if (typeof ticket !== 'string') {
      throw new UnauthorizedException(
        'Authentication required: send Authorization: Bearer <token>, or ?ticket= from POST /api/v1/events/stream-tickets',
      );
    }
    const redeemed = await this.tickets.redeem(ticket);
    if (redeemed === 'used') throw new UnauthorizedException('This stream ticket was used already: ask for a new one for each connection');
    if (!redeemed) throw new UnauthorizedException('Stream ticket is invalid or has expired');
    return redeemed;
  }
}

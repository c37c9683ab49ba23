import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig } from '../config/app-config';
import { REQUIRED_ROLES } from '../users/roles.decorator';
import type { UserRole } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { AuthenticatedRequest, PUBLIC_ROUTE, SIGNED_URL, TOKEN_IN_QUERY } from './auth.decorators';
import { AuthTokenService } from './auth-token.service';
import { SignedUrls } from './signed-urls';

/**
 * The one guard for who may call what: a valid bearer token of an existing user (401 otherwise),
 * the route's roles and the beta-access restriction (403 otherwise). Routes marked @Public skip it;
 * routes marked @AllowSignedUrl also take a valid signed URL instead of a token.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AuthTokenService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
    private readonly signedUrls: SignedUrls,
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
      if (verdict === 'invalid') throw new UnauthorizedException('The signature of this URL is invalid');
      return true;
    }
    const queryToken = this.reflector.getAllAndOverride<boolean>(TOKEN_IN_QUERY, targets)
      ? (request.query as { access_token?: unknown }).access_token
      : undefined;
    const useQueryToken = !this.tokens.hasBearer(request) && typeof queryToken === 'string';
    if (!this.tokens.hasBearer(request) && !useQueryToken)
      throw new UnauthorizedException('Authentication required: send Authorization: Bearer <token>');
    const claims = useQueryToken ? this.tokens.verify(queryToken as string) : this.tokens.claimsOf(request);
    if (!claims) throw new UnauthorizedException('Token is invalid or has expired');
    const user = await this.users.findForAuth(claims.sub);
    if (!user || user.token_version !== claims.ver) throw new UnauthorizedException('Token has been revoked');

    if (this.config.betaAccessOnly && user.role !== 'admin' && !user.beta_access) throw new ForbiddenException('Beta access required');
    const roles = this.reflector.getAllAndOverride<UserRole[] | undefined>(REQUIRED_ROLES, targets);
    if (roles && !roles.includes(user.role)) throw new ForbiddenException(`This action requires the ${roles.join(' or ')} role`);

    request.user = user;
    return true;
  }
}

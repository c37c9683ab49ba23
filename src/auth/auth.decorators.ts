import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { UserRow } from '../users/user.entity';

export const PUBLIC_ROUTE = 'auth:public';
export const TOKEN_IN_QUERY = 'auth:token-in-query';

/** The route answers without credentials (login, health, the channel webhook). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/**
 * The route also accepts the token as an `access_token` query parameter: browsers' EventSource
 * cannot send headers. Only for the event stream; the parameter is redacted from logs.
 */
export const AllowTokenInQuery = (): MethodDecorator & ClassDecorator => SetMetadata(TOKEN_IN_QUERY, true);

export type AuthenticatedRequest = FastifyRequest & { user: UserRow };

/** The user the AuthGuard authenticated for this request. */
export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): UserRow => {
  return context.switchToHttp().getRequest<AuthenticatedRequest>().user;
});

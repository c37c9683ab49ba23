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

export const SIGNED_URL = 'auth:signed-url';

/**
 * The route also answers, without a token, a URL signed by `SignedUrls` for its exact path and
 * still unexpired (`?expires=…&signature=…`): for what a browser loads by itself (`<img src>`).
 * There is no user then; the handler must not need one.
 */
export const AllowSignedUrl = (): MethodDecorator & ClassDecorator => SetMetadata(SIGNED_URL, true);

export type AuthenticatedRequest = FastifyRequest & { user: UserRow };

/** The user the AuthGuard authenticated for this request. */
export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): UserRow => {
  return context.switchToHttp().getRequest<AuthenticatedRequest>().user;
});

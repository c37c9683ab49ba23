import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { User, UserRole } from '../users/user.entity';

export const PUBLIC_ROUTE = 'auth:public';
export const REQUIRED_ROLES = 'auth:roles';

/** The route answers without credentials (login, health, the channel webhook). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/** Only these roles may call the route; every other authenticated user gets 403. */
export const Roles = (...roles: UserRole[]): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLES, roles);

export type AuthenticatedRequest = FastifyRequest & { user: User };

/** The user the AuthGuard authenticated for this request. */
export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): User => {
  return context.switchToHttp().getRequest<AuthenticatedRequest>().user;
});

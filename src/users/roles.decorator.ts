import { SetMetadata } from '@nestjs/common';
import type { UserRole } from './user.entity';

export const REQUIRED_ROLES = 'auth:roles';

/** Only these roles may call the route; every other authenticated user gets 403 (enforced by the auth guard). */
export const Roles = (...roles: UserRole[]): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLES, roles);

export const SESSION_ONLY = 'auth:session-only';

/**
 * The route refuses API tokens (403): it changes credentials (one's own password, second factor,
 * API tokens, sessions; an admin's hold on other accounts), which a leaked integration token must
 * not be able to do or to turn into a login of its own.
 */
export const SessionOnly = (): MethodDecorator & ClassDecorator => SetMetadata(SESSION_ONLY, true);

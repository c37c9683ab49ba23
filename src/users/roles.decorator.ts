import { SetMetadata } from '@nestjs/common';
import type { UserRole } from './user.entity';

export const REQUIRED_ROLES = 'auth:roles';

/** Only these roles may call the route; every other authenticated user gets 403 (enforced by the auth guard). */
export const Roles = (...roles: UserRole[]): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLES, roles);

import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { UserRow } from './user.entity';

/** The user the auth guard authenticated for this request (it sets `request.user`). */
export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): UserRow => {
  return context.switchToHttp().getRequest<{ user: UserRow }>().user;
});

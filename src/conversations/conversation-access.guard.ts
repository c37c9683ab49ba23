import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { UserRow } from '../users/user.entity';
import { ConversationsService } from './conversations.service';

/**
 * Before every route of one conversation (`/conversations/:id…`): an agent who does not work its
 * inbox gets the 404 of a conversation that does not exist, whatever the route does. After the
 * global auth guard, which set the caller.
 */
@Injectable()
export class ConversationAccessGuard implements CanActivate {
  constructor(private readonly conversations: ConversationsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<{ user?: UserRow; params?: Record<string, string | undefined> }>();
    const conversationId = request.params?.id;
    if (request.user && conversationId !== undefined) await this.conversations.assertVisible(conversationId, request.user);
    return true;
  }
}

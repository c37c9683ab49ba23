import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../users/current-user.decorator';
import { ApiErrors } from '../common/api-errors';
import { PageOf, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import type { UserRow } from '../users/user.entity';
import { ListNotificationsQuery, NotificationResponse, UnreadCountResponse } from './notification.dto';
import { NotificationsService } from './notifications.service';

const NotificationId = new PublicIdPipe('ntf', 'Notification');

@ApiTags('Notifications')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/notifications')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get()
  @ApiOperation({
    summary: "The caller's notifications, newest first",
    description:
      "Always the caller's own. `unread=true` lists only those not yet read. Created for a user when someone else assigns them a conversation, and when a customer writes in a conversation assigned to them; each one is also a `notification.created` frame on the caller's event stream (no one else's), and is e-mailed if still unread after EMAIL_NOTIFICATION_DELAY, as the user's `email_notifications` says.",
  })
  @ApiOkResponse({ type: PageOf(NotificationResponse, 'NotificationPage') })
  @ApiErrors(400)
  list(@CurrentUser() user: UserRow, @Query() query: ListNotificationsQuery): Promise<Page<NotificationResponse>> {
    return this.notifications.list(user.id, query);
  }

  @Get('unread-count')
  @ApiOperation({ summary: "How many of the caller's notifications are unread (the bell)" })
  @ApiOkResponse({ type: UnreadCountResponse })
  unreadCount(@CurrentUser() user: UserRow): Promise<UnreadCountResponse> {
    return this.notifications.unreadCount(user.id);
  }

  @Post('read')
  @HttpCode(204)
  @ApiOperation({
    summary: "Mark all of the caller's unread notifications read",
    description: 'Those already read keep the time they were first read.',
  })
  @ApiNoContentResponse()
  markAllRead(@CurrentUser() user: UserRow): Promise<void> {
    return this.notifications.markAllRead(user.id);
  }

  @Post(':id/read')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Mark one notification read',
    description: "Idempotent: marking it again answers 200 with the time it was first read. Another user's notification is a 404.",
  })
  @ApiOkResponse({ type: NotificationResponse })
  @ApiErrors(404)
  markRead(@CurrentUser() user: UserRow, @Param('id', NotificationId) id: string): Promise<NotificationResponse> {
    return this.notifications.markRead(user.id, id);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: "Delete all of the caller's notifications", description: "Other users' notifications stay." })
  @ApiNoContentResponse()
  clear(@CurrentUser() user: UserRow): Promise<void> {
    return this.notifications.clear(user.id);
  }
}

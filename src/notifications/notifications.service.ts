import { Injectable, NotFoundException } from '@nestjs/common';
import { newUuid } from '../common/ids';
import { mapPage, Page } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import { UsersService } from '../users/users.service';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import { ListNotificationsQuery, NotificationResponse, UnreadCountResponse } from './notification.dto';
import type { NotificationRow, NotificationType } from './notification.entity';
import { NotificationRepository } from './notification.repository';
import { NotificationEvent } from './notification.events';

export interface NewNotification {
  /** The uuid of the user it is for. */
  userId: string;
  type: NotificationType;
  conversationId: string | null;
  text: string;
}

@Injectable()
export class NotificationsService {
  constructor(
    private readonly database: Database,
    private readonly notifications: NotificationRepository,
    private readonly events: EventsService,
    private readonly config: AppConfig,
    users: UsersService,
  ) {
    // Who no longer sees an inbox (left it, or became an agent) loses their notifications about it,
    // which they could no longer open, nor be e-mailed about.
    users.whenSightNarrowed((db, userId) => this.notifications.deleteOutOfSight(db, userId));
  }

  /**
   * Stores a notification in the caller's transaction, so it is committed (or rolled back)
   * together with the change it tells about, with its `notification.created` event for the
   * user's stream alone; it is e-mailed if still unread after EMAIL_NOTIFICATION_DELAY (see
   * NotificationEmailer). For the modules that create them.
   */
  async notify(db: Db, notification: NewNotification): Promise<void> {
    const now = new Date();
    const row: NotificationRow = {
      id: newUuid(now.getTime()),
      user_id: notification.userId,
      type: notification.type,
      conversation_id: notification.conversationId,
      text: notification.text,
      created_at: now,
      read_at: null,
      email_due_at: new Date(now.getTime() + this.config.emailNotificationDelayMs),
    };
    await this.notifications.insert(db, row);
    await this.events.recordForUser(db, row.user_id, 'notification.created', NotificationEvent.of(NotificationResponse.of(row)));
  }

  /** How many of the user's notifications are unread (the bell). */
  async unreadCount(userId: string): Promise<UnreadCountResponse> {
    return { unread: await this.notifications.unreadCount(this.database.db, userId) };
  }

  /** In the caller's transaction: the notifications about a conversation merged into another now lead to that one. */
  async moveToConversation(db: Db, fromConversationId: string, intoConversationId: string): Promise<void> {
    await this.notifications.moveToConversation(db, fromConversationId, intoConversationId);
  }

  async list(userId: string, query: ListNotificationsQuery): Promise<Page<NotificationResponse>> {
    return mapPage(await this.notifications.list(this.database.db, userId, query.unread === true, query), NotificationResponse.of);
  }

  /** Marks one of the user's notifications read; read again, it keeps the time of the first read. */
  async markRead(userId: string, id: string): Promise<NotificationResponse> {
    await this.notifications.markRead(this.database.db, userId, id);
    const notification = await this.notifications.find(this.database.db, userId, id);
    if (!notification) throw new NotFoundException('Notification not found');
    return NotificationResponse.of(notification);
  }

  async markAllRead(userId: string): Promise<void> {
    await this.notifications.markRead(this.database.db, userId);
  }

  async clear(userId: string): Promise<void> {
    await this.notifications.deleteAll(this.database.db, userId);
  }
}

import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository, SelectQueryBuilder } from 'typeorm';
import { newUuid } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { ListNotificationsQuery, NotificationResponse } from './notification.dto';
import { Notification, type NotificationType } from './notification.entity';

export interface NewNotification {
  /** The uuid of the user it is for. */
  userId: string;
  type: NotificationType;
  conversationId: string | null;
  text: string;
}

/**
 * The one query behind the list, newest first with a (created_at, id) keyset. `user_id` leads and
 * the unread filter is spelled `read_at IS NULL`, so notifications_user_created_idx or, for
 * unread=true, the partial notifications_user_unread_idx serve it in order without a sort.
 * Exported so the tests can EXPLAIN exactly what the service runs.
 */
export function notificationListQuery(manager: EntityManager, userId: string, query: ListNotificationsQuery): SelectQueryBuilder<Notification> {
  const builder = manager
    .createQueryBuilder(Notification, 'n')
    .where('n.user_id = :userId', { userId })
    .orderBy('n.created_at', 'DESC')
    .addOrderBy('n.id', 'DESC')
    .limit(query.limit + 1);
  if (query.unread === true) builder.andWhere('n.read_at IS NULL');
  if (query.cursor) {
    const [createdAt, id] = decodeCursor(query.cursor, ['timestamp', 'uuid']);
    builder.andWhere('(n.created_at, n.id) < (:createdAt, :id)', { createdAt, id });
  }
  return builder;
}

@Injectable()
export class NotificationsService {
  constructor(@InjectRepository(Notification) private readonly notifications: Repository<Notification>) {}

  /**
   * Stores a notification with the caller's EntityManager, so it is committed (or rolled back)
   * together with the change it tells about. For the modules that create them.
   */
  async notify(manager: EntityManager, notification: NewNotification): Promise<void> {
    const now = new Date();
    await manager.insert(Notification, {
      id: newUuid(now.getTime()),
      userId: notification.userId,
      type: notification.type,
      conversationId: notification.conversationId,
      text: notification.text,
      createdAt: now,
      readAt: null,
    });
  }

  async list(userId: string, query: ListNotificationsQuery): Promise<Page<NotificationResponse>> {
    const rows = await notificationListQuery(this.notifications.manager, userId, query).getMany();
    return toPage(rows, query.limit, (n) => [n.createdAt.toISOString(), n.id], NotificationResponse.of);
  }

  /** Marks one of the user's notifications read; read again, it keeps the time of the first read. */
  async markRead(userId: string, id: string): Promise<Notification> {
    await this.notifications.update({ id, userId, readAt: IsNull() }, { readAt: new Date() });
    const notification = await this.notifications.findOneBy({ id, userId });
    if (!notification) throw new NotFoundException('Notification not found');
    return notification;
  }

  async markAllRead(userId: string): Promise<void> {
    await this.notifications.update({ userId, readAt: IsNull() }, { readAt: new Date() });
  }

  async clear(userId: string): Promise<void> {
    await this.notifications.delete({ userId });
  }
}

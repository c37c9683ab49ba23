import { ApiProperty } from '@nestjs/swagger';
import { NotificationResponse } from './notification.dto';

/** `notification.created`, on its user's stream only: the notification. */
export class NotificationEvent {
  @ApiProperty({ type: NotificationResponse })
  notification!: NotificationResponse;

  static of(notification: NotificationResponse): NotificationEvent {
    return { notification };
  }
}

declare module '../events/event-payloads' {
  interface EventPayloads {
    'notification.created': NotificationEvent;
  }
}

/** The documented class of the payload above. */
export const NOTIFICATION_EVENT_SCHEMAS = { 'notification.created': NotificationEvent };

import { toPublicId } from '../common/ids';
import { composeEmail, EmailContent, EmailLine } from '../mail/email-content';
import type { NotificationRow } from './notification.entity';

/** A digest lists at most this many notifications, and says how many more there are. */
const DIGEST_MAX_ITEMS = 50;

const PREFERENCE_FOOTER = (choice: string) =>
  `You get these e-mails because your notification e-mails are set to ${choice}. Change it in your profile (PATCH /api/v1/me, email_notifications).`;

/** Where the client shows what a notification is about: its conversation, or the inbox. */
function linkOf(appUrl: string, notification: NotificationRow): string {
  return notification.conversation_id === null
    ? `${appUrl}/`
    : `${appUrl}/conversations/${toPublicId('conv', notification.conversation_id)}`;
}

/** One notification still unread after EMAIL_NOTIFICATION_DELAY, for a user on `immediate`. */
export function notificationEmail(appUrl: string, name: string, notification: NotificationRow): EmailContent {
  return composeEmail({
    subject: notification.text,
    paragraphs: [`Hello ${name},`, notification.text, 'It is still unread in Team Inbox.'],
    action: {
      label: notification.conversation_id === null ? 'Open Team Inbox' : 'Open the conversation',
      url: linkOf(appUrl, notification),
    },
    footer: PREFERENCE_FOOTER('immediate'),
  });
}

/** The unread notifications of the last while, for a user on `digest`; each is listed in one digest only. */
export function digestEmail(appUrl: string, name: string, notifications: NotificationRow[]): EmailContent {
  const items: EmailLine[] = notifications.slice(0, DIGEST_MAX_ITEMS).map((notification) => ({
    text: `${notification.created_at.toISOString().slice(0, 16).replace('T', ' ')} UTC: ${notification.text}`,
    url: linkOf(appUrl, notification),
  }));
  const more = notifications.length - items.length;
  const count = notifications.length === 1 ? 'one unread notification' : `${notifications.length} unread notifications`;
  return composeEmail({
    subject: `Team Inbox: ${count}`,
    paragraphs: [`Hello ${name},`, `You have ${count} in Team Inbox:`],
    items: more > 0 ? [...items, { text: `and ${more} more` }] : items,
    action: { label: 'Open Team Inbox', url: `${appUrl}/` },
    footer: PREFERENCE_FOOTER('an hourly digest'),
  });
}

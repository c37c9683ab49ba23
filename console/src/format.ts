import type { Conversation, Message, Schemas } from './api/client';

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A list's time: the hour today, the day before. */
export function shortTime(iso: string): string {
  const date = new Date(iso);
  return date.toDateString() === new Date().toDateString() ? time.format(date) : day.format(date);
}

export function fullTime(iso: string): string {
  return full.format(new Date(iso));
}

/** "3 h 12 min" until a moment (or since, for the past). */
export function duration(ms: number): string {
  const minutes = Math.max(0, Math.round(Math.abs(ms) / 60_000));
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}

/** The delivery tick of an outbound message, and the words a screen reader says for it. */
export function tick(status: Message['status']): { mark: string; label: string; className: string } {
  switch (status) {
    case 'queued':
      return { mark: '🕓', label: 'Queued', className: 'tick' };
    case 'sent':
      return { mark: '✓', label: 'Sent', className: 'tick' };
    case 'delivered':
      return { mark: '✓✓', label: 'Delivered', className: 'tick' };
    case 'read':
    case 'played':
      return { mark: '✓✓', label: status === 'read' ? 'Read' : 'Played', className: 'tick tick-read' };
    case 'failed':
      return { mark: '⚠', label: 'Failed', className: 'tick tick-failed' };
    default:
      return { mark: '', label: '', className: 'tick' };
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How a customer is reached, for a line under their name: the phone, else the username they adopted (`@name`), else the channel's user id. */
export function customerHandle(customer: { phone: string | null; username: string | null; wa_user_id: string | null }): string {
  return customer.phone ?? (customer.username ? `@${customer.username}` : (customer.wa_user_id ?? ''));
}

/** Whether a conversation is with this contact: by the phone or the channel's user id (a conversation does not carry the contact's id). */
export function isWith(conversation: Conversation, contact: Schemas['ContactResponse']): boolean {
  const { customer } = conversation;
  return (
    (contact.phone !== null && customer.phone === contact.phone) ||
    (contact.wa_user_id !== null && customer.wa_user_id === contact.wa_user_id)
  );
}

/** A conversation's customer as the API writes it for this contact: the name, else how they are reached. */
export function customerOf(contact: Schemas['ContactResponse']): Conversation['customer'] {
  const { name, phone, wa_user_id, username } = contact;
  return { name: name ?? phone ?? username ?? wa_user_id ?? '', phone, wa_user_id, username };
}

/** The channel's error codes an agent meets most, in their words (the code's meaning, and what to do). */
const CHANNEL_ERRORS: [RegExp, string][] = [
  [
    /^131049$/,
    "This customer has reached today's limit of marketing messages: WhatsApp holds back more for now. Try again tomorrow, or wait for them to write.",
  ],
  [/^131050$/, 'The customer has turned off marketing messages from this business.'],
  [/^131026$/, 'WhatsApp could not deliver it: the number may not be on WhatsApp, or their app is out of date.'],
  [/^131047$/, 'More than 24 hours have passed since the customer last wrote: only a template can reach them now.'],
  [/^132\d{3}$/, 'The template was refused: check its name, language and placeholders against the approved template.'],
  [/^100$/, 'The channel refused a part of the message as invalid.'],
  [/^368$/, 'WhatsApp has blocked this number for a while for policy violations.'],
  [/^(130429|131056|131048|4|80007)$/, 'WhatsApp asked to slow down, and the retries ran out before it let this message through.'],
  [/^190$/, "The number's access token has expired or was revoked: an admin must give the inbox a new one."],
  [/^131031$/, "The WhatsApp Business Account is locked: an admin must resolve it in Meta's Business Manager."],
];

/** An agent's explanation of a channel error (`(#131049) …`), or null for a code without one. */
export function explainChannelError(error: string): string | null {
  const code = /^\(#(\d+)\)/.exec(error)?.[1];
  if (code === undefined) return null;
  return CHANNEL_ERRORS.find(([pattern]) => pattern.test(code))?.[1] ?? null;
}

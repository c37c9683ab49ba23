import type { Message } from './api/client';

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

import type { ContactAttributes } from './contact-attributes';

/** A row of `contacts`: a customer in the contact book, the customer of at most one conversation. */
export interface ContactRow {
  id: string;
  /** E.164, unique; null for a customer the channel knows only by `wa_user_id` (a username without a shared number). */
  phone: string | null;
  /** The channel's business-scoped user id (`US.13491208655302741918`), unique. A contact has a phone, this id or both. */
  wa_user_id: string | null;
  /** The username the customer adopted on WhatsApp, as the channel last sent it. */
  username: string | null;
  name: string | null;
  email: string | null;
  tags: string[];
  /** Custom attributes (jsonb): at most 50 keys of string, number or boolean values. */
  attributes: ContactAttributes;
  /** When the customer was blocked on the channel; null when they are not. */
  blocked_at: Date | null;
  /** Since when the customer wants no campaign (they wrote STOP, or an admin said so); null: they take them. */
  opted_out_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The text that `q` searches, exactly as the trigram index contacts_search_idx is defined, so
 * every search (contacts, conversations by customer) can use it. `alias` qualifies the columns.
 */
export function contactSearchText(alias: string): string {
  return `(coalesce(${alias}.name, '') || ' ' || coalesce(${alias}.phone, '') || ' ' || coalesce(${alias}.email, '') || ' ' || coalesce(${alias}.username, ''))`;
}

/** The channel's business-scoped user id: a two-letter country code, a period, then up to 128 letters, digits and periods (`US.ENT.…` for a parent id). */
export const WA_USER_ID_PATTERN = /^[A-Z]{2}\.[A-Za-z0-9.]{1,140}$/;

/** The longest username kept: WhatsApp's are far shorter; a longer one is cut, never refused (the body would be redelivered for days). */
export const MAX_USERNAME_LENGTH = 100;

/**
 * A customer as a channel webhook names them: their phone (E.164) when the channel shares it, their
 * business-scoped user id (`contacts[].user_id`, `from_user_id`), at least one of the two, and the
 * profile name and username they chose.
 */
export interface ChannelCustomer {
  phone: string | null;
  userId: string | null;
  username: string | null;
  profileName: string | null;
}

/** How a log line names a customer: the phone where there is one, else the user id. */
export function describeCustomer(customer: Pick<ChannelCustomer, 'phone' | 'userId'>): string {
  return customer.phone ?? customer.userId ?? 'an unnamed customer';
}

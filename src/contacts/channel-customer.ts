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

import { UnprocessableEntityException } from '@nestjs/common';
import type { ConversationRow } from './conversation.entity';

/** The channel's customer-service window: free-form messages only this long after the customer's last one. */
export const CUSTOMER_WINDOW_MS = 24 * 3600_000;

/** Whether the customer wrote within the window (counted from the channel's timestamp of their last message). */
export function isWithinCustomerWindow(conversation: Pick<ConversationRow, 'last_inbound_at'>, now: Date): boolean {
  return conversation.last_inbound_at !== null && now.getTime() - conversation.last_inbound_at.getTime() <= CUSTOMER_WINDOW_MS;
}

/** A 422 unless the customer wrote within the window. */
export function assertWithinCustomerWindow(
  conversation: Pick<ConversationRow, 'last_inbound_at'>,
  now: Date,
  what = 'only template messages can be sent',
): void {
  if (!isWithinCustomerWindow(conversation, now)) {
    throw new UnprocessableEntityException(`The customer's last message is more than 24 hours old: ${what}`);
  }
}

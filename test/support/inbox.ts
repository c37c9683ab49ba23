import { channelMessage, channelWebhook, hubSignature } from './channel';
import type { TestApp } from './test-app';

let lastPhone = 14155550000 + Math.floor(Math.random() * 9000);

interface CustomerMessage {
  name?: string;
  text?: string;
  timestamp?: number;
  phone?: string;
  appSecret?: string;
  /** The inbox's number that receives it; the default inbox's unless given. */
  phoneNumberId?: string;
}

/**
 * A customer writes in (through the channel webhook, signed with `appSecret` when given, else
 * unsigned); answers their conversation.
 */
export async function customerWrites(t: TestApp, options: CustomerMessage = {}): Promise<{ id: string; phone: string }> {
  const from = await customerMessageArrives(t, options);
  const list = await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(`+${from}`)}`, { token: await t.adminToken() });
  return { id: list.body.data[0].id as string, phone: `+${from}` };
}

/**
 * The channel delivers a customer's message, and nothing more is asked: for messages that arrive
 * while something moves their conversation (a merge), where looking it up by the phone afterwards
 * may find it gone. Answers the phone it came from, without the +.
 */
export async function customerMessageArrives(t: TestApp, options: CustomerMessage = {}): Promise<string> {
  const from = options.phone ?? String((lastPhone += 1));
  const payload = JSON.stringify(
    channelWebhook(
      {
        contacts: [{ wa_id: from, name: options.name ?? 'Customer' }],
        messages: [channelMessage({ from, timestamp: options.timestamp, payload: { body: options.text ?? 'Hello' } })],
      },
      { phoneNumberId: options.phoneNumberId },
    ),
  );
  const answer = await t.request('POST', '/api/webhooks/messaging', {
    payload,
    headers: {
      'content-type': 'application/json',
      ...(options.appSecret ? { 'x-hub-signature-256': hubSignature(payload, options.appSecret) } : {}),
    },
  });
  if (answer.status !== 200) throw new Error(`inbound answered ${answer.status}: ${answer.text}`);
  return from;
}

/** A conversation as an API answer shows it, as events show it: without the caller's unread_count, which events leave out. */
export function asInEvents<T extends { unread_count?: number }>(conversation: T): Omit<T, 'unread_count'> {
  const { unread_count: _readerState, ...shared } = conversation;
  return shared;
}

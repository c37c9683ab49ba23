import { messagesWebhook, newWamid, webhookBody } from '../../scripts/lib/channel-webhook';

export { hubSignature, newWamid } from '../../scripts/lib/channel-webhook';

export interface InboundOptions {
  /** The customer's number as the channel sends it, without the + */
  from?: string;
  name?: string;
  id?: string;
  /** Unix seconds. */
  timestamp?: number;
  type?: string;
  /** The type's payload, e.g. `{ body: 'Hi' }` for text. */
  payload?: unknown;
  extra?: Record<string, unknown>;
}

/** One inbound message as the WhatsApp Cloud API's `messages` array holds it. */
export function channelMessage(options: InboundOptions = {}): Record<string, unknown> {
  const type = options.type ?? 'text';
  return {
    from: options.from ?? '16315551234',
    id: options.id ?? newWamid(),
    timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    type,
    ...(type === 'contacts' ? { contacts: options.payload } : { [type]: options.payload ?? { body: 'Hello' } }),
    ...options.extra,
  };
}

/** A whole webhook body: one entry, one change, with the given messages and statuses. */
export function channelWebhook(
  value: {
    messages?: Record<string, unknown>[];
    statuses?: Record<string, unknown>[];
    contacts?: { wa_id: string; name: string }[];
  },
  business: { phoneNumberId?: string } = {},
): Record<string, unknown> {
  return messagesWebhook(
    {
      ...(value.contacts ? { contacts: value.contacts.map((c) => ({ wa_id: c.wa_id, profile: { name: c.name } })) } : {}),
      ...(value.messages ? { messages: value.messages } : {}),
      ...(value.statuses ? { statuses: value.statuses } : {}),
    },
    business,
  );
}

/** A webhook body with one change of a business account's templates (`message_template_status_update`, `template_category_update`); the entry names the account (the default one's unless given). */
export function templateChangeWebhook(
  field: 'message_template_status_update' | 'template_category_update',
  value: Record<string, unknown>,
  businessAccountId?: string,
): Record<string, unknown> {
  return webhookBody({ field, value }, { businessAccountId }, { time: Math.floor(Date.now() / 1000) });
}

export function channelStatus(
  id: string,
  status: string,
  options: { timestamp?: number; errors?: unknown[] } = {},
): Record<string, unknown> {
  return {
    id,
    status,
    timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    recipient_id: '16315551234',
    ...(options.errors ? { errors: options.errors } : {}),
  };
}

/** Polls until `check` stops throwing (for work that happens after the answer, like sends). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

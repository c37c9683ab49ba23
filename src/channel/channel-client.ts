import type { Readable } from 'node:stream';

/** How long one transfer of a media's bytes to or from the channel may take: leases of work that moves media outlast it. */
export const MEDIA_TRANSFER_TIMEOUT_MS = 5 * 60_000;

/**
 * One message template as the channel defines it: the fields of the Graph API's
 * `GET /{business account id}/message_templates` (`components` with `type` HEADER, BODY, FOOTER,
 * BUTTONS, …, each as the channel wrote it).
 */
export interface ChannelTemplate {
  /** The channel's id of the template; null if it gave none. */
  id: string | null;
  name: string;
  /** Language and locale code, e.g. `en_US`. */
  language: string;
  /** APPROVED, PENDING, REJECTED, PAUSED, DISABLED, … as the channel names it. */
  status: string;
  /** MARKETING, UTILITY or AUTHENTICATION. */
  category: string;
  components: Record<string, unknown>[];
  /** `NAMED` (`{{first_name}}`) or `POSITIONAL` (`{{1}}`, the channel's default). */
  parameter_format: string;
}

/** Where a message to a customer goes: their phone (E.164 with the leading +) or, without one, their business-scoped user id. */
export interface CustomerAddress {
  phone: string | null;
  userId: string | null;
}

/** A message as the Graph API takes it: `{type, [type]: content}`, addressed to a customer, quoting a message with `context`. */
export interface OutboundMessage {
  to: CustomerAddress;
  type: string;
  content: Record<string, unknown>;
  /** The channel id of the message it replies to. */
  context?: { message_id: string };
}

/** One WhatsApp number on the Cloud API, as an inbox holds it: where it sends from and with which token. */
export interface ChannelAccount {
  phoneNumberId: string;
  accessToken: string;
  /** The WhatsApp Business Account of its template catalogue; null: no catalogue. */
  businessAccountId: string | null;
}

export interface ChannelHealth {
  ok: boolean;
  channel: 'whatsapp' | 'sandbox';
  /** Why the channel is unhealthy, in one sentence. */
  error?: string;
  /** The number as the channel shows it, when it said. */
  displayPhoneNumber?: string;
}

/** The catalogue key of the sandbox's own templates: never a business account's id, which is digits. */
export const SANDBOX_CATALOGUE = 'sandbox';

/**
 * Which template catalogue an account's channel reads: its business account's, the sandbox's for
 * no account (an inbox without a token), none for a number without a business account. Inboxes
 * that share a business account share its catalogue.
 */
export function catalogueOf(account: ChannelAccount | null): string | null {
  return account === null ? SANDBOX_CATALOGUE : account.businessAccountId;
}

/** A media the channel holds, as it starts to arrive. */
export interface ChannelMediaDownload {
  /** What the channel says of the media; null where it did not say. */
  mimeType: string | null;
  sha256: string | null;
  size: number | null;
  body: Readable;
}

/** The bytes of a media to upload to the channel. */
export interface ChannelMediaUpload {
  body: Readable;
  size: number;
  mimeType: string;
  filename: string;
}

/**
 * A refusal or failure of the channel. Retryable ones (429, 5xx, network, the channel's codes
 * that ask to slow down) are tried again, not before `retryAfterMs` when the channel asked for a
 * pause; `gone` says the channel no longer has what was asked for (a media id past its 7 days);
 * `accountBroken` that the number's token or business account is (190, 131031); `refused` that
 * the channel answered with a refusal (a 4xx), so it surely did not take what was sent (after a
 * timeout, a lost connection or a 5xx it may have).
 */
export class ChannelError extends Error {
  readonly retryAfterMs: number | null;
  readonly accountBroken: boolean;
  readonly refused: boolean;

  constructor(
    message: string,
    readonly retryable: boolean,
    readonly gone = false,
    more: { retryAfterMs?: number | null; accountBroken?: boolean; refused?: boolean } = {},
  ) {
    super(message);
    this.name = 'ChannelError';
    this.retryAfterMs = more.retryAfterMs ?? null;
    this.accountBroken = more.accountBroken ?? false;
    this.refused = more.refused ?? false;
  }
}

/** How a failed call to the channel counts for recorded work. */
export interface ChannelFailure {
  /** The channel's own reason: `(#<code>) <title>: <details>`. */
  reason: string;
  retryable: boolean;
  /** The pause the channel asked for before the next attempt. */
  retryAfterMs: number | null;
}

/** The channel's judgement of a failed call, as its ChannelError carries it; anything else is a network failure, worth another attempt. */
export function channelFailure(error: unknown): ChannelFailure {
  if (error instanceof ChannelError) return { reason: error.message, retryable: error.retryable, retryAfterMs: error.retryAfterMs };
  return { reason: 'The channel could not be reached', retryable: true, retryAfterMs: null };
}

/**
 * The port through which every module reaches the WhatsApp channel: the messaging module provides
 * it (the Cloud API, or the local sandbox when no token is set) and is the only one that knows the
 * Graph API. The jobs that send, mark read, download and sync live beside the rows they change.
 * Provided as is, it is the default inbox's channel; InboxChannels answers each inbox's.
 */
export abstract class ChannelClient {
  /**
   * The template catalogue the channel reads (catalogueOf its account): its business account's id,
   * SANDBOX_CATALOGUE for the sandbox's own; null: it has none (a number without a business
   * account), and its template sends are not checked.
   */
  abstract readonly catalogue: string | null;

  /** Sends and answers the channel's message id (`wamid.…`); throws ChannelError. */
  abstract send(message: OutboundMessage): Promise<string>;
  /** Tells the customer's phone that their message (and those before it) was read; throws ChannelError. */
  abstract markRead(channelMessageId: string): Promise<void>;
  /** Shows "typing…" to the customer (for up to 25 s, or until the reply) and marks their message read; throws ChannelError. */
  abstract showTyping(channelMessageId: string): Promise<void>;
  abstract health(): Promise<ChannelHealth>;
  /** Every message template of the catalogue, all pages read; throws ChannelError. */
  abstract listTemplates(): Promise<ChannelTemplate[]>;
  /** Starts the download of a customer's media by the channel's media id; throws ChannelError. */
  abstract downloadMedia(channelMediaId: string): Promise<ChannelMediaDownload>;
  /** Uploads media for sending and answers the channel's id for it; throws ChannelError. */
  abstract uploadMedia(media: ChannelMediaUpload): Promise<string>;
  /**
   * Blocks a customer (their phone, E.164 with the +, or their user id without one): they can no longer write to the business, nor it to them.
   * The channel blocks only a customer who wrote in the last 24 hours; throws ChannelError with its reason.
   */
  abstract block(user: string): Promise<void>;
  /** Lifts a block; throws ChannelError. */
  abstract unblock(user: string): Promise<void>;
}

/**
 * The channel of each inbox: its number, token and business account on the Cloud API, or the
 * sandbox for an inbox without a token. The inboxes module provides it; work for a conversation
 * goes through the channel of the conversation's inbox.
 */
export abstract class InboxChannels {
  /** The inbox's channel; throws a final ChannelError when the inbox no longer exists or is disabled. */
  abstract of(inboxId: string): Promise<ChannelClient>;
  /**
   * Records on the inbox that the channel said its token or account is broken (`reason`, the
   * channel's own), until an admin mends it; unless `channel`, the client that was told, is no
   * longer the inbox's (an admin changed its token or number since: their mend stands).
   */
  abstract accountBroken(inboxId: string, reason: string, channel: ChannelClient): Promise<void>;
}

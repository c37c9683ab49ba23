import type { Readable } from 'node:stream';
import type { ChannelTemplate } from '../templates/template.entity';

/** A message as the Graph API takes it: `{type, [type]: content}`, addressed to a customer, quoting a message with `context`. */
export interface OutboundMessage {
  /** E.164 with the leading +. */
  to: string;
  type: string;
  content: Record<string, unknown>;
  /** The channel id of the message it replies to. */
  context?: { message_id: string };
}

export interface ChannelHealth {
  ok: boolean;
  channel: 'whatsapp' | 'sandbox';
  /** Why the channel is unhealthy, in one sentence. */
  error?: string;
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
 * A refusal or failure of the channel. Retryable ones (429, 5xx, network) are tried again;
 * `gone` says the channel no longer has what was asked for (a media id past its 7 days).
 */
export class ChannelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly gone = false,
  ) {
    super(message);
    this.name = 'ChannelError';
  }
}

/** Where outbound messages go: the WhatsApp Cloud API, or the local sandbox when no token is set. */
export abstract class MessagingChannel {
  /** Whether the channel has a template catalogue: the sandbox's own, or a business account's (MESSAGING_BUSINESS_ACCOUNT_ID). */
  abstract readonly hasTemplateCatalogue: boolean;

  /** Sends and answers the channel's message id (`wamid.…`); throws ChannelError. */
  abstract send(message: OutboundMessage): Promise<string>;
  /** Tells the customer's phone that their message (and those before it) was read; throws ChannelError. */
  abstract markRead(channelMessageId: string): Promise<void>;
  abstract health(): Promise<ChannelHealth>;
  /** Every message template of the catalogue, all pages read; throws ChannelError. */
  abstract listTemplates(): Promise<ChannelTemplate[]>;
  /** Starts the download of a customer's media by the channel's media id; throws ChannelError. */
  abstract downloadMedia(channelMediaId: string): Promise<ChannelMediaDownload>;
  /** Uploads media for sending and answers the channel's id for it; throws ChannelError. */
  abstract uploadMedia(media: ChannelMediaUpload): Promise<string>;
}

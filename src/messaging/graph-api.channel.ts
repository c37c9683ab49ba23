import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ChannelError, ChannelHealth, MessagingChannel, OutboundMessage } from './messaging-channel';

const SEND_TIMEOUT_MS = 10_000;
const HEALTH_TIMEOUT_MS = 3_000;
/** Probes arrive every few seconds from every replica; the Graph API is asked at most this often. */
const HEALTH_CACHE_MS = 5_000;
/** Graph error codes that mean "too fast, try later" even when the HTTP status is not 429. */
const THROTTLING_CODES = new Set([4, 80007, 130429, 131056]);

interface GraphError {
  error?: { message?: string; code?: number; error_data?: { details?: string } };
}

/** The WhatsApp Business Cloud API: `POST {base}/{phone number id}/messages` with the bearer token. */
@Injectable()
export class GraphApiChannel extends MessagingChannel {
  private cachedHealth: { at: number; health: Promise<ChannelHealth> } | null = null;

  constructor(private readonly config: AppConfig) {
    super();
  }

  async send(message: OutboundMessage): Promise<string> {
    const body = await this.postMessages<{ messages?: { id?: string }[] }>(
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: message.to.replace(/^\+/, ''),
        ...(message.context ? { context: message.context } : {}),
        type: message.type,
        [message.type]: message.content,
      },
      (answer) => Boolean(answer.messages?.[0]?.id),
    );
    return body.messages![0].id!;
  }

  /** `{"messaging_product":"whatsapp","status":"read","message_id":…}`, answered `{"success":true}`. */
  async markRead(channelMessageId: string): Promise<void> {
    await this.postMessages<{ success?: boolean }>(
      { messaging_product: 'whatsapp', status: 'read', message_id: channelMessageId },
      (answer) => answer.success === true,
    );
  }

  /** POSTs to the phone number's messages endpoint; answers the body when `succeeded` says so, else throws ChannelError. */
  private async postMessages<Answer>(payload: Record<string, unknown>, succeeded: (answer: Answer) => boolean): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(`${this.config.messagingApiBaseUrl}/${this.config.messagingPhoneNumberId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.config.messagingAccessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ChannelError(`The channel could not be reached: ${(error as Error).message}`, true);
    }
    const body = (await response.json().catch(() => ({}))) as GraphError & Answer;
    if (response.ok && succeeded(body)) return body;
    const code = body.error?.code;
    const retryable = response.status === 429 || response.status >= 500 || (code !== undefined && THROTTLING_CODES.has(code));
    throw new ChannelError(describeGraphError(response.status, body), retryable);
  }

  health(): Promise<ChannelHealth> {
    if (!this.cachedHealth || Date.now() - this.cachedHealth.at > HEALTH_CACHE_MS) {
      this.cachedHealth = { at: Date.now(), health: this.probe() };
    }
    return this.cachedHealth.health;
  }

  private async probe(): Promise<ChannelHealth> {
    try {
      const response = await fetch(`${this.config.messagingApiBaseUrl}/${this.config.messagingPhoneNumberId}`, {
        headers: { authorization: `Bearer ${this.config.messagingAccessToken}` },
        signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
      });
      if (response.ok) return { ok: true, channel: 'whatsapp' };
      const body = (await response.json().catch(() => ({}))) as GraphError;
      return { ok: false, channel: 'whatsapp', error: describeGraphError(response.status, body) };
    } catch (error) {
      return { ok: false, channel: 'whatsapp', error: `The channel could not be reached: ${(error as Error).message}` };
    }
  }
}

function describeGraphError(status: number, body: GraphError): string {
  const error = body.error;
  if (!error?.message) return `The channel answered HTTP ${status}`;
  const details = error.error_data?.details ? `: ${error.error_data.details}` : '';
  return `${error.code !== undefined ? `(#${error.code}) ` : ''}${error.message}${details}`;
}

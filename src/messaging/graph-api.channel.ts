import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { ChannelTemplate } from '../templates/template.entity';
import { ChannelError, ChannelHealth, MessagingChannel, OutboundMessage } from './messaging-channel';

const SEND_TIMEOUT_MS = 10_000;
const HEALTH_TIMEOUT_MS = 3_000;
/** Per page of the template catalogue. */
const LIST_TIMEOUT_MS = 10_000;
/** Probes arrive every few seconds from every replica; the Graph API is asked at most this often. */
const HEALTH_CACHE_MS = 5_000;
/** Graph error codes that mean "too fast, try later" even when the HTTP status is not 429. */
const THROTTLING_CODES = new Set([4, 80007, 130429, 131056]);
/** The fields of a message template the catalogue keeps. */
const TEMPLATE_FIELDS = 'name,language,status,category,components,id,parameter_format';
const TEMPLATE_PAGE_SIZE = 100;
/** Far more pages than any business account has templates (a few thousand at most): past this, the channel's paging is taken to be broken. */
const MAX_TEMPLATE_PAGES = 500;

interface GraphError {
  error?: { message?: string; code?: number; error_data?: { details?: string } };
}

/** A page of a Graph API list: `{data: [...], paging: {cursors: {before, after}, next}}`. */
interface GraphPage {
  data?: unknown;
  paging?: { cursors?: { after?: unknown }; next?: unknown };
}

/**
 * The WhatsApp Business Cloud API: `POST {base}/{phone number id}/messages` with the bearer token,
 * and the catalogue at `GET {base}/{business account id}/message_templates`.
 */
@Injectable()
export class GraphApiChannel extends MessagingChannel {
  private cachedHealth: { at: number; health: Promise<ChannelHealth> } | null = null;

  constructor(private readonly config: AppConfig) {
    super();
  }

  get hasTemplateCatalogue(): boolean {
    return this.config.messagingBusinessAccountId !== null;
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

  /**
   * Every page of the business account's templates. Only a `paging.next` says another page
   * follows, and that page is asked of the configured base with the `paging.cursors.after` cursor,
   * never at the address `next` names: an answer cannot make us send the token elsewhere.
   */
  async listTemplates(): Promise<ChannelTemplate[]> {
    const account = this.config.messagingBusinessAccountId;
    if (!account) throw new ChannelError('MESSAGING_BUSINESS_ACCOUNT_ID is not set: the channel has no template catalogue', false);
    const templates: ChannelTemplate[] = [];
    const cursors = new Set<string>();
    let after: string | null = null;
    for (let page = 1; ; page += 1) {
      const url = new URL(`${this.config.messagingApiBaseUrl}/${encodeURIComponent(account)}/message_templates`);
      url.searchParams.set('fields', TEMPLATE_FIELDS);
      url.searchParams.set('limit', String(TEMPLATE_PAGE_SIZE));
      if (after !== null) url.searchParams.set('after', after);
      const what = `page ${page} of the template catalogue`;
      const body = await this.getJson<GraphPage>(url, what);
      if (!Array.isArray(body.data)) throw new ChannelError(`The channel answered ${what} without a data array`, true);
      body.data.forEach((item, index) => templates.push(templateOf(item, `${what}, item ${index + 1}`)));
      const next = body.paging?.next;
      const cursor = body.paging?.cursors?.after;
      if (typeof next !== 'string' || next === '') return templates;
      if (typeof cursor !== 'string' || cursor === '')
        throw new ChannelError(`The channel answered ${what} with paging.next but no cursor`, true);
      if (cursors.has(cursor) || page >= MAX_TEMPLATE_PAGES)
        throw new ChannelError(`The channel's pages of the template catalogue do not end (${what})`, true);
      cursors.add(cursor);
      after = cursor;
    }
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

  /** GET with the bearer token; the JSON answer, or a ChannelError naming `what` failed and why. */
  private async getJson<T>(url: URL, what: string): Promise<T> {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { authorization: `Bearer ${this.config.messagingAccessToken}` },
        signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ChannelError(`The channel could not be reached for ${what}: ${(error as Error).message}`, true);
    }
    const body = (await response.json().catch(() => null)) as (T & GraphError) | null;
    if (response.ok && body !== null && typeof body === 'object') return body;
    throw new ChannelError(
      `The channel refused ${what}: ${describeGraphError(response.status, body ?? {})}`,
      response.status === 429 || response.status >= 500,
    );
  }
}

/**
 * One template of a catalogue page, or a ChannelError naming where it is: a template that cannot
 * be read fails the whole sync, since a catalogue stored without it would mark it DELETED.
 */
function templateOf(item: unknown, where: string): ChannelTemplate {
  const fields = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
  const text = (key: string): string | null => (typeof fields[key] === 'string' && fields[key] !== '' ? fields[key] : null);
  const [name, language, status, category] = [text('name'), text('language'), text('status'), text('category')];
  const components =
    Array.isArray(fields.components) && fields.components.every((c) => typeof c === 'object' && c !== null && !Array.isArray(c))
      ? (fields.components as Record<string, unknown>[])
      : null;
  if (!name || !language || !status || !category || !components) {
    throw new ChannelError(`The channel answered a template without a name, language, status, category or components (${where})`, false);
  }
  const id = typeof fields.id === 'string' || typeof fields.id === 'number' ? String(fields.id) : null;
  return { id, name, language, status, category, components, parameter_format: text('parameter_format') ?? 'POSITIONAL' };
}

function describeGraphError(status: number, body: GraphError): string {
  const error = body.error;
  if (!error?.message) return `The channel answered HTTP ${status}`;
  const details = error.error_data?.details ? `: ${error.error_data.details}` : '';
  return `${error.code !== undefined ? `(#${error.code}) ` : ''}${error.message}${details}`;
}

import { AsyncResource } from 'node:async_hooks';
import { AuditLogService } from '../audit/audit-log.service';
import {
  ConflictException,
  ForbiddenException,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
  OnModuleInit,
  ServiceUnavailableException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { Batcher } from '../common/batcher';
import { newUuid, toPublicId } from '../common/ids';
import { mapPage, type Page, type PageQuery } from '../common/pagination';
import { findUnstorable, toStorable } from '../common/storable-text';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { isDatabaseUnavailable } from '../database/errors';
import type { Db } from '../database/sql';
import { ContactsService } from '../contacts/contacts.service';
import { ConversationResponse } from '../conversations/conversation.dto';
import { ConversationsService } from '../conversations/conversations.service';
import type { ConversationRow } from '../conversations/conversation.entity';
import type { MessageRow } from '../conversations/message.entity';
import type { ChannelCustomer } from '../contacts/channel-customer';
import type { ContactRow } from '../contacts/contact.entity';
import { type InboundMessage, MessagesService } from '../conversations/messages.service';
import { ReactionsService } from '../conversations/reactions.service';
import { EventsService } from '../events/events.service';
import { NotificationsService } from '../notifications/notifications.service';
import { ChannelErrorResponse } from './channel-error.dto';
import { ChannelErrorRepository } from './channel-error.repository';
import { checkChannelSignature, sameSecret } from './webhook-signature';
import { changeSourcesOf, type ChannelChangeError, parseChannelWebhook, type ParsedWebhook } from './channel-payload';
import { TemplatesService } from '../templates/templates.service';
import { DeadLetterResponse } from './dead-letter.dto';
import { DeadLetterRepository } from './dead-letter.repository';
import { type InboxAutomation, InboxesService, type InboxRouter } from '../inboxes/inboxes.service';
import { AutoRepliesService } from '../automation/auto-replies.service';
import { CsatService } from '../automation/csat.service';
import { CampaignRepliesService } from '../campaigns/campaign-replies.service';
import { OptOutService } from '../campaigns/opt-out.service';
import { MessageAddedEvent } from '../conversations/conversation.events';

const STORE_LATER = 'The webhook could not be stored; retry later';

/** A change names a business number no inbox has: the body waits as a dead letter until one has it. */
class UnknownPhoneNumber extends Error {
  constructor(readonly phoneNumberId: string) {
    super(`The body names the phone number ${phoneNumberId}, which no active inbox has`);
  }
}

/** How many lines of a failure's stack a dead letter keeps: the message and the frames that locate it. */
const STACK_LINES = 12;

/**
 * Bodies one transaction stores at most on the embedded engine: enough to share a commit among a
 * burst (groups of 10 gained about half of what groups of 25 did), few enough that a failed
 * group's second pass stays short. A request of the API waits for PGlite's one connection behind
 * at most the group under way, where it used to queue behind every body waiting for it.
 */
const GROUP_COMMIT_MAX_BODIES = 25;

/** A body waiting to be stored with the others that arrive meanwhile, with its request's async context (its log lines' request id). */
interface BodyToStore {
  parsed: ParsedWebhook;
  receivedAt: Date;
  /** The inboxes as the signature check read them: the body is routed by them (see store), not by a second read. */
  router: InboxRouter;
  context: AsyncResource;
}

/** How storing one body ended: the messages it stored, or why it could not be. */
type StoreOutcome = { stored: number } | { failed: unknown };

/** Counts of one stored body, as the webhook answers them. */
export interface Ingested {
  messages: number;
  statuses: number;
}

/**
 * The channel webhook: the verification handshake, the signature check, and ingestion. A 200
 * promises that every message of the body is committed, so one body is one transaction, or that
 * the body is kept raw as a dead letter for an admin to replay: only a database that is down
 * answers 503, because the channel redelivers a refused body for days, and a body that fails for
 * what it holds would fail every time, holding back the other messages it carries.
 */
@Injectable()
export class InboundService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(InboundService.name);
  /**
   * On the embedded engine, a group commit: bodies that arrive while others are being stored wait
   * and are stored together (see storeTogether). On PostgreSQL each body is its own transaction,
   * as many at once as the pool has connections: measured, grouping gave nothing there (the
   * machine is bound by the statements' CPU, not by commits; docs/performance.md), and groups
   * stored at once would lock their customers' rows in orders no single body does.
   */
  private readonly storing: Batcher<BodyToStore, StoreOutcome>;
  /** The inboxes' routes being read for the signature checks, shared by the requests that arrive meanwhile. */
  private routesRead: Promise<InboxRouter> | null = null;

  constructor(
    private readonly database: Database,
    private readonly config: AppConfig,
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    private readonly deadLetters: DeadLetterRepository,
    private readonly reactions: ReactionsService,
    private readonly channelErrors: ChannelErrorRepository,
    private readonly templates: TemplatesService,
    private readonly audit: AuditLogService,
    private readonly inboxes: InboxesService,
    private readonly autoReplies: AutoRepliesService,
    private readonly csat: CsatService,
    private readonly optOut: OptOutService,
    private readonly campaignReplies: CampaignRepliesService,
  ) {
    const embedded = config.databaseUrl === null;
    this.storing = new Batcher((bodies) => this.storeTogether(bodies), {
      maxBatch: embedded ? GROUP_COMMIT_MAX_BODIES : 1,
      concurrency: embedded ? 1 : config.databasePoolMax,
    });
  }

  /** An inbox created, given a number or enabled may be the one bodies kept as dead letters waited for. */
  onModuleInit(): void {
    this.inboxes.whenChanged(() => this.replayRoutable());
  }

  /** Runs after InboxesService's (this module depends on it): the inboxes are as the settings describe them. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.messagingAppSecret && this.config.isProduction) {
      this.logger.error('MESSAGING_APP_SECRET is not set: inbound channel webhooks are refused (production verifies every one)');
    } else if (!this.config.messagingAppSecret) {
      this.logger.warn('MESSAGING_APP_SECRET is not set: inbound channel webhooks are accepted without checking X-Hub-Signature-256');
    }
    await this.replayRoutable();
  }

  /**
   * Replays the bodies kept for a number no inbox had, where an inbox has it now. A replay that
   * fails is recorded on its dead letter, as an admin's would be, and the rest go on; a replica
   * that finds one replayed meanwhile by another skips it.
   */
  async replayRoutable(): Promise<void> {
    const router = await this.inboxes.router(this.database.db);
    for (const letter of await this.deadLetters.unrouted(this.database.db)) {
      if (router.route(letter.unknown_phone_number_id) === null) continue;
      try {
        await this.replay(letter.id);
        this.logger.log(
          `Channel webhook: dead letter ${toPublicId('ibf', letter.id)} replayed, its number ${letter.unknown_phone_number_id} now has an inbox`,
        );
      } catch (error) {
        if (error instanceof ConflictException) continue;
        this.logger.warn(`Channel webhook: dead letter ${toPublicId('ibf', letter.id)} could not be replayed: ${asError(error).message}`);
      }
    }
  }

  /** The channel's GET handshake: echo the challenge when the verify token matches. */
  verifySubscription(mode: string | undefined, token: string | undefined, challenge: string | undefined): string {
    const expected = this.config.messagingWebhookVerifyToken;
    if (mode !== 'subscribe' || !expected || !token || !challenge || !sameSecret(token, expected)) {
      throw new ForbiddenException('The verify token does not match MESSAGING_WEBHOOK_VERIFY_TOKEN');
    }
    return challenge;
  }

  /**
   * X-Hub-Signature-256 is `sha256=<hex HMAC of the raw body keyed with the app secret>`: the app
   * secret of the inbox each change is for (MESSAGING_APP_SECRET for an inbox without one, or a
   * number no inbox has), so every such key must verify it. Outside production a change without
   * any key is taken unchecked, for trying the service.
   */
  private async verifySignature(rawBody: Buffer | undefined, signature: string | undefined, body: unknown): Promise<InboxRouter> {
    let router: InboxRouter;
    try {
      router = await this.currentRoutes();
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw this.unavailable('Channel webhook could not be checked', error, STORE_LATER);
      throw error;
    }
    this.checkSignedFor(router, rawBody, signature, body);
    return router;
  }

  /**
   * One read of the inboxes for every request that asks while it is under way: under load the
   * channel's requests arrive by the dozen. A read begun a moment before a request is as if the
   * request had come that moment earlier (see store); a body signed with an app secret changed in
   * that moment is refused with a 401, which the channel retries.
   */
  private currentRoutes(): Promise<InboxRouter> {
    this.routesRead ??= this.inboxes.router(this.database.db).finally(() => {
      this.routesRead = null;
    });
    return this.routesRead;
  }

  /** Checks the signature with the app secret of every number (or business account) the body's changes are about, as the router knows them. */
  private checkSignedFor(router: InboxRouter, rawBody: Buffer | undefined, signature: string | undefined, body: unknown): void {
    const keys = new Set(changeSourcesOf(body).map((source) => router.appSecret(source)));
    checkChannelSignature(rawBody, signature, keys, this.config.isProduction);
  }

  /**
   * Checks a delivery's signature, then stores its messages and statuses, or keeps the raw body as
   * a dead letter when that fails for another reason than the database being down.
   */
  async ingest(rawBody: Buffer | undefined, signature: string | undefined, body: unknown): Promise<Ingested> {
    const router = await this.verifySignature(rawBody, signature, body);
    const receivedAt = new Date();
    const parsed = this.parse(body, receivedAt);
    const outcome = await this.storing
      .run({ parsed, receivedAt, router, context: new AsyncResource('InboundBody') })
      .catch((failed: unknown): StoreOutcome => ({ failed }));
    if ('stored' in outcome) return { messages: outcome.stored, statuses: parsed.statuses.length };
    if (isDatabaseUnavailable(outcome.failed)) throw this.unavailable('Channel webhook could not be stored', outcome.failed, STORE_LATER);
    await this.keepDeadLetter(rawBody ?? Buffer.alloc(0), signature, outcome.failed, receivedAt);
    return { messages: 0, statuses: 0 };
  }

  /**
   * Stores bodies in one transaction: one BEGIN and one COMMIT (on PGlite a write of its files)
   * shared among them, where each body alone paid its own. Each is answered only after that
   * commit, so a 200 still means committed. PGlite runs one transaction at a time, so no other
   * transaction can wait on the group's locks in a cycle. When the group fails, for whatever
   * reason, every body is stored again in a transaction of its own and answered as it would have
   * been alone: one body that cannot be stored fails only itself, and a database that is down
   * fails each with a 503.
   */
  private async storeTogether(bodies: BodyToStore[]): Promise<StoreOutcome[]> {
    if (bodies.length > 1) {
      try {
        return await this.database.transaction(async (db) => {
          const outcomes: StoreOutcome[] = [];
          for (const { parsed, receivedAt, router, context } of bodies) {
            outcomes.push({ stored: await context.runInAsyncScope(() => this.store(db, parsed, receivedAt, router)) });
          }
          return outcomes;
        });
      } catch {
        // Stored again one by one below, where each body's own failure is known and logged.
      }
    }
    const outcomes: StoreOutcome[] = [];
    for (const { parsed, receivedAt, router, context } of bodies) {
      outcomes.push(
        await context.runInAsyncScope(() =>
          this.database
            .transaction((db) => this.store(db, parsed, receivedAt, router))
            .then(
              (stored): StoreOutcome => ({ stored }),
              (failed: unknown): StoreOutcome => ({ failed }),
            ),
        ),
      );
    }
    return outcomes;
  }

  /** The channel's errors about whole changes, newest first (admins). */
  async listChannelErrors(page: PageQuery): Promise<Page<ChannelErrorResponse>> {
    return mapPage(await this.channelErrors.list(this.database.db, page), ChannelErrorResponse.of);
  }

  /** Dead letters, newest first (admins). */
  async listDeadLetters(page: PageQuery): Promise<Page<DeadLetterResponse>> {
    return mapPage(await this.deadLetters.list(this.database.db, page), DeadLetterResponse.of);
  }

  /**
   * Runs a dead letter's raw body through the same storing again, in one transaction with marking
   * it replayed: 409 once it has been, 422 with the reason when storing fails again (recorded as
   * its replay_error), 503 when the database is down. A body is stored once either way, since a
   * message id already stored is skipped.
   */
  async replay(id: string): Promise<DeadLetterResponse> {
    let storing = false;
    try {
      const replayed = await this.database.transaction(async (db) => {
        const letter = await this.deadLetters.lock(db, id);
        if (!letter) throw new NotFoundException('Dead letter not found');
        if (letter.replayed_at) throw new ConflictException('This body was already replayed and stored');
        storing = true;
        const body: unknown = JSON.parse(letter.raw_body.toString('utf8'));
        // A body kept for a number no inbox had was checked with MESSAGING_APP_SECRET; the inbox
        // that has the number now may have a secret of its own, which must sign it too.
        const router = await this.inboxes.router(db);
        if (letter.unknown_phone_number_id !== null) this.checkSignedFor(router, letter.raw_body, letter.signature ?? undefined, body);
        await this.store(db, this.parse(body, letter.received_at), letter.received_at, router);
        await this.audit.record(db, 'dead_letter.replayed', { target: toPublicId('ibf', id) });
        return (await this.deadLetters.markReplayed(db, id, new Date()))!;
      });
      return DeadLetterResponse.of(replayed);
    } catch (error) {
      if (isDatabaseUnavailable(error))
        throw this.unavailable(`Replaying dead letter ${toPublicId('ibf', id)} failed`, error, 'The database is unavailable; retry later');
      if (!storing) throw error;
      const failure = asError(error);
      this.logger.error(`Replaying dead letter ${toPublicId('ibf', id)} failed: ${failure.message}`, failure.stack);
      await this.deadLetters.recordReplayError(this.database.db, id, toStorable(failure.message));
      throw new UnprocessableEntityException(`The body could not be stored: ${failure.message}`);
    }
  }

  private parse(body: unknown, receivedAt: Date): ParsedWebhook {
    const parsed = parseChannelWebhook(body, receivedAt);
    for (const line of parsed.ignored) this.logger.warn(`Channel webhook: acknowledged without storing ${line}`);
    for (const error of parsed.errors) this.logger.warn(`Channel webhook: the channel reported an error: ${describeChangeError(error)}`);
    const unstorable = findUnstorable(body, 'body');
    if (unstorable !== null) {
      this.logger.warn(
        `Channel webhook: characters PostgreSQL cannot store (NUL, unpaired surrogates), first at ${unstorable}, stored as U+FFFD`,
      );
    }
    return parsed;
  }

  /**
   * Stores the messages, statuses and change errors and template changes of one body in the caller's transaction;
   * answers how many messages were new. A reaction to a message of the customer's thread is
   * attached to it rather than stored; a changed number moves the contact first.
   */
  private async store(
    db: Db,
    { messages, phoneNumberIds, statuses, errors, templates }: ParsedWebhook,
    receivedAt: Date,
    routedBy: InboxRouter,
  ): Promise<number> {
    // A body is routed by the inboxes as they were when its signature was checked, before this
    // transaction: an inbox disabled, given another number or made (over the sandbox's catch-all)
    // since then applies to the bodies checked after it. Only a number no inbox had is looked up
    // again here, so that a body does not become a dead letter for a number an inbox has by now:
    // that inbox's replay of dead letters may have run already.
    const router = phoneNumberIds.every((phoneNumberId) => routedBy.route(phoneNumberId) !== null)
      ? routedBy
      : await this.inboxes.router(db);
    const unknown = phoneNumberIds.find((phoneNumberId) => router.route(phoneNumberId) === null);
    if (unknown !== undefined) throw new UnknownPhoneNumber(unknown);
    let stored = 0;
    for (const { customer, message, phoneNumberId } of messages) {
      const inboxId = router.route(phoneNumberId)!;
      const plain = !message.reaction && !message.newPhone && !message.previousUserId;
      // A redelivery must not reopen a conversation an agent closed since (a plain message is checked
      // by the statement that locks its customer, storeCustomerMessage).
      if (!plain && (await this.messages.isKnown(db, message.channelMessageId))) continue;
      if (message.reaction) {
        const attached = await this.reactions.applyCustomerReaction(db, customer, {
          channelMessageId: message.channelMessageId,
          targetChannelMessageId: message.reaction.channelMessageId,
          emoji: message.reaction.emoji,
          sentAt: message.sentAt,
        });
        if (attached) continue;
      }
      const saved = message.newPhone
        ? await this.storeNumberChange(db, customer, message.newPhone, message, inboxId)
        : message.previousUserId
          ? await this.storeUserIdChange(
              db,
              message.previousUserId,
              { ...customer, userId: message.newUserId ?? customer.userId },
              message,
              inboxId,
            )
          : await this.storeCustomerMessage(db, customer, message, inboxId, router.automationOf(inboxId));
      if (saved) stored += 1;
    }
    for (const status of statuses) await this.messages.applyChannelStatus(db, status);
    for (const error of errors) {
      await this.channelErrors.insert(db, {
        id: newUuid(receivedAt.getTime()),
        received_at: receivedAt,
        code: error.code,
        title: error.title,
        details: error.details,
        error: error.error,
      });
    }
    for (const change of templates) await this.templates.applyChannelChange(db, change);
    return stored;
  }

  /** A customer's message: their conversation found, created or reopened, message.received recorded, the assignee notified. */
  private async storeCustomerMessage(
    db: Db,
    customer: ChannelCustomer,
    message: InboundMessage,
    inboxId: string,
    automation: InboxAutomation | null,
  ): Promise<boolean> {
    // A customer who wrote in this inbox before (nearly every message): one statement locks their
    // contact and conversation and says whether this message was delivered before.
    const found = await this.conversations.lockThreadOfCustomer(db, customer, inboxId, message.channelMessageId);
    if (found?.known || (found === null && (await this.messages.isKnown(db, message.channelMessageId)))) return false;
    const contact = found
      ? await this.contacts.keepFromChannel(db, found.contact, customer)
      : (await this.contacts.findOrCreateForCustomer(db, customer)).contact;
    // After the contact's lock, as before: the times written follow those of whoever held it.
    const now = new Date();
    const { conversation, created } = found
      ? { conversation: found.conversation, created: false }
      : await this.conversations.openForContact(db, contact.id, now, { inboxId, reopen: false });
    // An answer to the satisfaction survey is not the customer coming back: it reopens nothing and gets no automatic reply.
    const answer = created ? null : await this.csat.answerIn(db, conversation, message, now);
    if (!answer) await this.conversations.reopenForCustomer(db, conversation, now);
    const saved = await this.messages.recordInbound(db, conversation, message);
    if (!saved) return false;
    const shown = await this.recordReceived(db, saved, contact);
    await this.campaignReplies.afterCustomerMessage(db, saved.conversation, saved.message.created_at);
    if (answer) await this.csat.keep(db, conversation.id, answer);
    else if (!(await this.optOut.afterCustomerMessage(db, contact, saved.conversation, message.text, new Date())))
      await this.autoReplies.afterCustomerMessage(db, saved.conversation, automation, { created, at: new Date() });
    if (conversation.assigned_to) {
      await this.notifications.notify(db, {
        userId: conversation.assigned_to,
        type: 'message.received',
        conversationId: conversation.id,
        text: `New message from ${shown.customer.name}`,
      });
    }
    return true;
  }

  /**
   * `user_changed_number`: the contact moves to the new number (see ContactsService.changeNumber)
   * and the notice is stored in its thread as a `system` message. It is not the customer writing:
   * it reopens nothing, opens no 24-hour window and notifies no one.
   */
  private async storeNumberChange(
    db: Db,
    customer: ChannelCustomer,
    newPhone: string,
    message: InboundMessage,
    inboxId: string,
  ): Promise<boolean> {
    // A customer known by id alone shares a number now: their contact takes it, and the notice is a notice, not them writing.
    if (customer.phone === null)
      return this.storeNotice(
        db,
        (await this.contacts.findOrCreateForCustomer(db, { ...customer, phone: newPhone })).contact,
        message,
        inboxId,
      );
    const { contact, outcome } = await this.contacts.changeNumber(db, customer.phone, newPhone, customer.profileName);
    if (outcome === 'taken') {
      this.logger.warn(
        `Channel webhook: ${customer.phone} changed number to ${newPhone}, which another contact has already: both kept (merge them if they are one person)`,
      );
    }
    return this.storeNotice(db, contact, message, inboxId);
  }

  /** `user_changed_user_id`: the contact moves to the new user id (see ContactsService.changeUserId); the notice is stored like a number change's. */
  private async storeUserIdChange(
    db: Db,
    previousUserId: string,
    customer: ChannelCustomer,
    message: InboundMessage,
    inboxId: string,
  ): Promise<boolean> {
    const { contact, outcome } = await this.contacts.changeUserId(db, previousUserId, customer);
    if (outcome === 'taken') {
      this.logger.warn(
        `Channel webhook: user id ${previousUserId} changed to ${customer.userId}, which another contact has already: both kept (merge them if they are one person)`,
      );
    }
    return this.storeNotice(db, contact, message, inboxId);
  }

  /** A notice of the channel about the customer, in their thread: it reopens nothing, opens no 24-hour window and notifies no one. */
  private async storeNotice(db: Db, contact: ContactRow, message: InboundMessage, inboxId: string): Promise<boolean> {
    const { conversation } = await this.conversations.openForContact(db, contact.id, new Date(), { reopen: false, inboxId });
    const saved = await this.messages.recordInbound(db, conversation, message, false);
    if (!saved) return false;
    await this.recordReceived(db, saved, contact);
    return true;
  }

  /**
   * message.received with the whole message (the seed's id, text, from among its fields); answers
   * the conversation as the event shows it. That is built from the rows the ingest holds, not read again: the conversation as its
   * update answered it, the contact, and the message as its preview (the newest of the thread:
   * it was inserted just now, under the conversation's lock).
   */
  private async recordReceived(
    db: Db,
    { message, conversation }: { message: MessageRow; conversation: ConversationRow & { labels: string[] } },
    contact: ContactRow,
  ): Promise<ConversationResponse> {
    const shown = ConversationResponse.of({
      ...conversation,
      customer_name: contact.name,
      customer_phone: contact.phone,
      customer_wa_user_id: contact.wa_user_id,
      customer_username: contact.username,
      last_message_id: message.id,
      last_message_direction: message.direction,
      last_message_type: message.type,
      last_message_text: message.text,
      last_message_status: message.status,
      last_message_created_at: message.created_at,
    });
    await this.events.record(
      db,
      'message.received',
      MessageAddedEvent.of(await this.messages.presentNew(db, message, contact.phone), shown),
    );
    return shown;
  }

  /** Keeps a body that could not be stored, so the webhook can answer 200; a 503 when even that fails, so the channel retries. */
  private async keepDeadLetter(rawBody: Buffer, signature: string | undefined, error: unknown, receivedAt: Date): Promise<void> {
    const failure = asError(error);
    const id = newUuid(receivedAt.getTime());
    const unknownNumber = error instanceof UnknownPhoneNumber ? error.phoneNumberId : null;
    if (unknownNumber === null) {
      this.logger.error(
        `Channel webhook could not be stored, kept as dead letter ${toPublicId('ibf', id)} for replay: ${failure.message}`,
        failure.stack,
      );
    } else {
      // Not our failure: a number added in Meta's dashboard before its inbox here. It is replayed once an inbox has it.
      this.logger.warn(
        `Channel webhook for phone number ${unknownNumber}, which no active inbox has, kept as dead letter ${toPublicId('ibf', id)}`,
      );
    }
    try {
      await this.deadLetters.insert(this.database.db, {
        id,
        received_at: receivedAt,
        raw_body: rawBody,
        // Unchecked without MESSAGING_APP_SECRET, so it may hold anything; the texts may quote the body.
        signature: signature === undefined ? null : toStorable(signature),
        error: toStorable(failure.message),
        unknown_phone_number_id: unknownNumber === null ? null : toStorable(unknownNumber),
        error_stack: failure.stack === undefined ? null : toStorable(failure.stack.split('\n').slice(0, STACK_LINES).join('\n')),
        replayed_at: null,
        replay_error: null,
      });
    } catch (keepError) {
      throw this.unavailable('Channel webhook could not be kept as a dead letter either', keepError, STORE_LATER);
    }
  }

  /** Logs the failure with its stack and answers a 503 (which makes the channel retry). */
  private unavailable(what: string, error: unknown, answer: string): ServiceUnavailableException {
    const failure = asError(error);
    this.logger.error(`${what}: ${failure.message}`, failure.stack);
    return new ServiceUnavailableException(answer);
  }
}

/** `(#131000) Something went wrong: <details>` for the log. */
function describeChangeError(error: ChannelChangeError): string {
  const code = error.code === null ? '' : `(#${error.code}) `;
  return `${code}${error.title ?? 'untitled'}${error.details ? `: ${error.details}` : ''}`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

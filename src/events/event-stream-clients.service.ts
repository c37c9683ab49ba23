import { BeforeApplicationShutdown, HttpException, HttpStatus, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { newUuid } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { InstanceRegistry } from '../database/instance-registry';
import { visibleInboxesOf, type UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { Access, AccessCheck, AccessEnded, accessEnded } from '../auth/access';
import { EventReplayService } from './event-replay.service';
import { EventStream, sees, type StreamViewer } from './event-stream';
import type { EventEnvelope } from './event.entity';
import { OpenStreamRepository } from './open-stream.repository';
import { StreamInterruptions } from './stream-interruptions';
import { UserFrames, type UserFrame } from './user-frames';

/** How long a replayed event is remembered, so that it is not sent again when it arrives live. */
const REPLAYED_MEMORY_MS = 10 * 60_000;
/** Live events held for one client while its replay runs; past this it is sent away to resume later. */
const MAX_HELD_EVENTS = 10_000;
/** How long a stream ended by shutdown may take to flush before its socket is destroyed. */
const SHUTDOWN_FLUSH_MS = 1_000;
/** A user frame is built again this long after the first event that may change it: the events of a burst share one build. */
const USER_FRAME_SETTLE_MS = 250;

/** What a client whose Last-Event-ID cannot be replayed from is told: it reads again what it shows. */
const RESYNC_FRAME = `event: resync\ndata: ${JSON.stringify({
  reason: 'Last-Event-ID is unknown or past retention: the events after it cannot be replayed; read again what you show',
})}\n\n`;

/** The access a stream was opened with: its user as they were then, and the credential. */
export interface StreamAccess {
  user: UserRow;
  access: Access;
  /** The one inbox (uuid) the stream keeps to (`?inbox_id=`), among those its user sees; null for all of them. */
  inboxId: string | null;
}

/** One SSE frame: the envelope's id and type, then the envelope itself as JSON on one line. */
export function sseFrame(event: EventEnvelope): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The Server-Sent Events connections of this instance. Each one subscribes to the EventStream
 * before it replays what the client missed (after Last-Event-ID), holding live events meanwhile,
 * so nothing falls in between; replayed events are not sent a second time when they arrive live.
 * A stream that starts without Last-Event-ID first gets an `id:` line with the newest event its
 * user may see, so that a client that has seen no event yet can still resume; then, and whenever
 * they change, the user frames (UserFrames: the inbox's `counts`).
 */
@Injectable()
export class EventStreamClients implements OnModuleInit, BeforeApplicationShutdown {
  /** Between keep-alive comments; a static so tests can shorten it (not a setting: proxies want ~15 s). */
  static keepAliveIntervalMs = 15_000;
  /** A client that leaves more than this unread in its socket buffer is disconnected (it resumes). */
  static maxUnreadBytes = 1024 * 1024;
  /**
   * Between checks that each stream's access still holds. A change of a user (logout, new
   * password, role, removal) is checked at once on every instance through the broadcast; this
   * check is for an expiry, and for a broadcast lost while Redis was away.
   */
  static accessCheckIntervalMs = 5_000;

  private readonly logger = new Logger(EventStreamClients.name);
  private readonly connections = new Set<SseConnection>();
  /** The ids of this instance's streams in `event_streams`, while they are open. */
  private readonly openStreamIds = new Set<string>();
  private closing = false;
  private stopWatching: () => void = () => undefined;
  private accessTimer?: NodeJS.Timeout;

  constructor(
    private readonly stream: EventStream,
    private readonly replay: EventReplayService,
    private readonly interruptions: StreamInterruptions,
    private readonly userFrames: UserFrames,
    private readonly users: UsersService,
    private readonly accessCheck: AccessCheck,
    private readonly database: Database,
    private readonly openStreams: OpenStreamRepository,
    private readonly instance: InstanceRegistry,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // Live events may have been lost: the clients reconnect and replay them from the table.
    this.stopWatching = this.interruptions.onInterrupted(() => void this.endAll());
    this.users.onChanged((userId) => void this.checkAccess(userId));
    this.userFrames.onChangedFor((userId) => {
      for (const connection of this.connections) if (connection.access.user.id === userId) connection.framesChanged();
    });
    this.accessTimer = setInterval(() => {
      void this.checkAccess(null);
      void this.forgetClosedStreams();
    }, EventStreamClients.accessCheckIntervalMs).unref();
  }

  /** How many streams are open on this instance. */
  get openCount(): number {
    return this.connections.size;
  }

  /**
   * Takes the reply over from Fastify and streams to it until the client leaves, its access ends or
   * the application shuts down: every event for everyone, and those for its user alone.
   * `lastEventId`: the public id of the last event the client has, if any. Refused (429) when the
   * user has STREAM_MAX_PER_USER streams open already, on any instance.
   */
  async serve(request: FastifyRequest, reply: FastifyReply, access: StreamAccess, lastEventId: string | null): Promise<void> {
    const streamId = newUuid();
    if (!this.closing) {
      const opened = await this.database.transaction((db) =>
        this.openStreams.openUnlessAt(
          db,
          { id: streamId, userId: access.user.id, instanceId: this.instance.id },
          this.config.streamMaxPerUser,
        ),
      );
      if (opened) this.openStreamIds.add(streamId);
      if (!opened) {
        throw new HttpException(
          `At most ${this.config.streamMaxPerUser} event streams per user are open at once: close one (another tab or device) first`,
          HttpStatus.TOO_MANY_REQUESTS,
        );
      }
    }
    const headers: OutgoingHttpHeaders = {};
    // The headers set so far (x-request-id, rate limit, CORS, security headers) survive the hijack.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
    // Shutting down: an empty stream on a connection that closes, and the client reconnects elsewhere.
    Object.assign(headers, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: this.closing ? 'close' : 'keep-alive',
      'x-accel-buffering': 'no',
    });
    reply.hijack();
    reply.raw.writeHead(200, headers);
    reply.raw.flushHeaders();
    if (this.closing) {
      reply.raw.end();
      return;
    }
    const connection = new SseConnection(request, reply.raw, access, this.stream, this.replay, this.userFrames.all, this.logger, () => {
      this.connections.delete(connection);
      this.openStreamIds.delete(streamId);
      this.database
        .transaction((db) => this.openStreams.close(db, streamId))
        .catch((error: unknown) =>
          // Left counted until the next sweep (forgetClosedStreams): the user may open one fewer meanwhile.
          this.logger.warn(`Event stream ${request.id} closed but still counted for its user, until the next sweep: ${String(error)}`),
        );
    });
    this.connections.add(connection);
    connection.start(lastEventId, EventStreamClients.keepAliveIntervalMs);
  }

  /**
   * Deletes this instance's rows of streams no longer open, whose own delete failed (the database
   * away at that moment), so they stop counting against their users' cap. Rows younger than a
   * check interval are left: their stream may be opening right now.
   */
  private async forgetClosedStreams(): Promise<void> {
    try {
      const openedBefore = new Date(Date.now() - EventStreamClients.accessCheckIntervalMs);
      await this.openStreams.forgetClosed(this.database.db, this.instance.id, [...this.openStreamIds], openedBefore);
    } catch (error) {
      this.logger.warn(`Sweeping the closed event streams failed, tried again soon: ${String(error)}`);
    }
  }

  /** Ends every open stream before the HTTP server closes, which would otherwise wait for them. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.accessTimer);
    this.stopWatching();
    await this.endAll();
  }

  /**
   * Ends the streams whose access no longer holds (expired; the user removed, their tokens revoked
   * or their role changed since the stream opened): of one user, or of everyone for null.
   */
  private async checkAccess(userId: string | null): Promise<void> {
    const byUser = new Map<string, SseConnection[]>();
    for (const connection of this.connections) {
      if (userId !== null && connection.access.user.id !== userId) continue;
      byUser.set(connection.access.user.id, [...(byUser.get(connection.access.user.id) ?? []), connection]);
    }
    for (const connections of byUser.values()) {
      for (const connection of connections) {
        let ended: string | null;
        try {
          ended = endedAccess(connection.access, await this.accessCheck.check(connection.access.access));
        } catch (error) {
          this.logger.warn(`Checking the access of an event stream failed, checked again soon: ${String(error)}`);
          continue;
        }
        if (ended) void connection.endBecause(ended);
      }
    }
  }

  private async endAll(): Promise<void> {
    await Promise.allSettled([...this.connections].map((connection) => connection.end()));
  }
}

/** Why a stream's access no longer holds (AccessCheck's answer, or its user's role changed since it opened), or null while it does. */
function endedAccess(opened: StreamAccess, now: UserRow | AccessEnded): string | null {
  if (accessEnded(now)) return now.reason;
  if (now.role !== opened.user.role) return "its user's role changed";
  // The stream's filter is the user's inboxes as it opened: a change of them reconnects it with the new ones.
  if (now.inbox_ids.join() !== opened.user.inbox_ids.join()) return "its user's inboxes changed";
  return null;
}

class SseConnection {
  private readonly startedAt = Date.now();
  private unsubscribe: () => void = () => undefined;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private sent = 0;
  /** Live events that arrived during the replay, in arrival order; null once live. */
  private held: EventEnvelope[] | null = null;
  private readonly heldIds = new Set<string>();
  /** Replayed events that may still arrive live, with when they were sent. */
  private readonly replayed = new Map<string, number>();
  private replaying: Promise<void> = Promise.resolve();
  /** The user frames as last sent (their JSON), and the frames waiting to be built again. */
  private readonly framesSent = new Map<string, string>();
  private readonly framesDue = new Set<UserFrame>();
  private framesTimer?: NodeJS.Timeout;
  /** Builds of user frames run one after another, so an older build is never sent after a newer one. */
  private framesSending: Promise<void> = Promise.resolve();

  constructor(
    private readonly request: FastifyRequest,
    private readonly raw: ServerResponse,
    /** The access it was opened with; events for another user alone never reach it. */
    readonly access: StreamAccess,
    private readonly stream: EventStream,
    private readonly replay: EventReplayService,
    private readonly frames: readonly UserFrame[],
    private readonly logger: Logger,
    private readonly onClosed: () => void,
  ) {}

  /** Its user's own events, and everyone's of the inboxes they see, as they were when it opened (a change of them ends it). */
  private get viewer(): StreamViewer {
    const inboxId = this.access.inboxId;
    return {
      userId: this.access.user.id,
      inboxes: inboxId === null ? visibleInboxesOf(this.access.user) : [inboxId],
      admin: this.access.user.role === 'admin',
    };
  }

  start(lastEventId: string | null, keepAliveMs: number): void {
    if (this.raw.destroyed || !this.raw.socket || this.raw.socket.destroyed) {
      // The client left while the request was being authenticated: its 'close' has been and gone.
      this.close();
      return;
    }
    this.raw.on('close', () => this.close());
    this.raw.on('error', () => this.close());
    // Live events wait until the client has its place: the replay's events, or the position line.
    this.held = [];
    // Subscribed before the replay reads the table: an event is either read or held, or both.
    this.unsubscribe = this.stream.subscribe((event) => {
      if (sees(this.viewer, { ...event, type: event.envelope.type })) this.receive(event.envelope);
    });
    this.timer = setInterval(() => this.keepAlive(), keepAliveMs);
    // The position is read after subscribing: an event relayed since is at or before it, or held and sent after it.
    const placed = lastEventId === null ? this.sendPosition() : this.replayFrom(lastEventId);
    this.replaying = placed
      .then(() => this.releaseHeld())
      .catch((error: unknown) => {
        this.logger.error(
          `Starting event stream ${this.request.id} failed: ${String(error)}`,
          error instanceof Error ? error.stack : undefined,
        );
        this.drop();
      });
    this.sendFrames(this.frames, 'Starting');
  }

  /** Ends the stream because its access ended; the client's next connection is refused until it logs in again. */
  async endBecause(reason: string): Promise<void> {
    if (this.closed) return;
    this.request.log.info({ req: this.request }, `event stream ended: ${reason}`);
    await this.end();
  }

  /** Ends the stream cleanly, then releases its connection, which would otherwise stay open for keep-alive. */
  async end(): Promise<void> {
    if (this.closed) return;
    this.close();
    // Node detaches the socket from the response when it finishes: hold on to it here.
    const socket = this.raw.socket;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => this.raw.destroy(), SHUTDOWN_FLUSH_MS);
      this.raw.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      this.raw.end(() => socket?.destroy());
    });
    await this.replaying;
  }

  private receive(event: EventEnvelope): void {
    if (this.closed) return;
    this.frameChangedBy(event);
    if (this.held) {
      if (this.held.length >= MAX_HELD_EVENTS) {
        this.logger.warn(`Event stream ${this.request.id} fell ${MAX_HELD_EVENTS} events behind during its replay; disconnected`);
        this.drop();
        return;
      }
      this.held.push(event);
      this.heldIds.add(event.id);
      return;
    }
    if (this.replayed.delete(event.id)) return;
    this.sendEvent(event, true);
  }

  private async replayFrom(lastEventId: string): Promise<void> {
    const cursor = await this.replay.cursorOf(lastEventId);
    if (cursor === null) {
      // Live events follow from the newest one's place, and what the client shows was built on events it cannot be given.
      await this.sendPosition();
      this.write(RESYNC_FRAME, false);
    } else {
      for await (const batch of this.replay.eventsAfter(cursor, this.viewer)) {
        if (this.closed) return;
        for (const { envelope, mayStillArrive } of batch) {
          this.sendEvent(envelope, false);
          if (mayStillArrive || this.heldIds.has(envelope.id)) this.replayed.set(envelope.id, Date.now());
        }
        await this.drained();
      }
    }
  }

  /** Sends the live events held while the client's place was being found, then lets them through. */
  private releaseHeld(): void {
    if (this.closed || !this.held) return;
    const held = this.held;
    this.held = null;
    this.heldIds.clear();
    for (const event of held) this.receive(event);
  }

  /** `id: <the newest event the user may see>` on its own: the position of a client that has seen no event. */
  private async sendPosition(): Promise<void> {
    const newest = await this.replay.newestFor(this.access.user.id);
    if (newest !== null) this.write(`id: ${newest}\n\n`, false);
  }

  private frameChangedBy(event: EventEnvelope): void {
    for (const frame of this.frames) if (frame.changedBy(event.type)) this.framesDue.add(frame);
    this.buildDueFrames();
  }

  /** Something no event records (a read) changed its user's frames: all of them are built again. */
  framesChanged(): void {
    for (const frame of this.frames) this.framesDue.add(frame);
    this.buildDueFrames();
  }

  /** The due frames are built once the changes of a burst have settled. */
  private buildDueFrames(): void {
    if (this.closed || this.framesDue.size === 0 || this.framesTimer) return;
    this.framesTimer = setTimeout(() => {
      this.framesTimer = undefined;
      const due = [...this.framesDue];
      this.framesDue.clear();
      this.sendFrames(due, 'Updating');
    }, USER_FRAME_SETTLE_MS);
  }

  /** Builds the frames for this user, after any build under way, and sends those that changed since they were last sent. */
  private sendFrames(frames: readonly UserFrame[], doing: 'Starting' | 'Updating'): void {
    this.framesSending = this.framesSending
      .then(async () => {
        for (const frame of frames) {
          if (this.closed) return;
          const data = JSON.stringify(await frame.build(this.access.user));
          if (this.closed || this.framesSent.get(frame.event) === data) continue;
          this.framesSent.set(frame.event, data);
          this.write(`event: ${frame.event}\ndata: ${data}\n\n`, true);
        }
      })
      .catch((error: unknown) => this.failed(doing, error));
  }

  /** A user frame could not be built (the database down): the client reconnects and gets it then. */
  private failed(doing: string, error: unknown): void {
    this.logger.warn(`${doing} the user frames of event stream ${this.request.id} failed, disconnected: ${String(error)}`);
    this.drop();
  }

  private keepAlive(): void {
    this.write(': keep-alive\n\n', true);
    const forgetBefore = Date.now() - REPLAYED_MEMORY_MS;
    for (const [id, sentAt] of this.replayed) if (sentAt < forgetBefore) this.replayed.delete(id);
  }

  private sendEvent(event: EventEnvelope, live: boolean): void {
    if (this.closed) return;
    this.write(sseFrame(event), live);
    this.sent += 1;
  }

  /** `live`: a client that does not keep up is disconnected rather than buffered for without end. */
  private write(chunk: string, live: boolean): void {
    if (this.closed) return;
    this.raw.write(chunk);
    if (live && this.raw.writableLength > EventStreamClients.maxUnreadBytes) {
      this.logger.warn(`Event stream ${this.request.id} does not keep up (${this.raw.writableLength} bytes unread); disconnected`);
      this.drop();
    }
  }

  private drained(): Promise<void> {
    if (this.closed || !this.raw.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.raw.off('drain', done);
        this.raw.off('close', done);
        resolve();
      };
      this.raw.on('drain', done);
      this.raw.on('close', done);
    });
  }

  /** Stops everything for this client; idempotent (every way out of a stream comes here). */
  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.timer);
    clearTimeout(this.framesTimer);
    this.onClosed();
    this.request.log.info({ req: this.request, ms: Date.now() - this.startedAt, events: this.sent }, 'event stream closed');
  }

  /** Disconnects the client at once; it reconnects and resumes with Last-Event-ID. */
  private drop(): void {
    this.close();
    this.raw.destroy();
  }
}

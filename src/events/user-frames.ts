import { Injectable } from '@nestjs/common';
import { Broadcast } from '../queue/broadcast';
import type { UserRow } from '../users/user.entity';
import type { EventType } from './event-types';

/** The broadcast topic naming a user whose frames changed without an event (message: the user's id). */
const USER_FRAMES_CHANGED = 'user-frames-changed';

/**
 * A frame the event stream sends each user beside the events (`event: <name>`, `data: <JSON>`):
 * built for the user when the stream connects, and again after events that may change it, sent
 * only when it did change. The conversations module's `counts` (the inbox's tab counts) is one.
 */
export interface UserFrame {
  event: string;
  changedBy(type: EventType): boolean;
  build(user: UserRow): Promise<unknown>;
}

/** The user frames the modules registered while the application started. */
@Injectable()
export class UserFrames {
  private readonly frames: UserFrame[] = [];

  constructor(private readonly broadcast: Broadcast) {}

  add(frame: UserFrame): void {
    this.frames.push(frame);
  }

  get all(): readonly UserFrame[] {
    return this.frames;
  }

  /**
   * Something no event records changed the user's frames (they read a conversation, which lowers
   * their unread count): their streams on every instance build the frames again. Best effort, as
   * the broadcast is: a signal lost while Redis is away leaves the frames until the next event.
   */
  async changedFor(userId: string): Promise<void> {
    await this.broadcast.publish(USER_FRAMES_CHANGED, userId);
  }

  /** Calls `listener` with the id of each user whose frames `changedFor` said changed, on any instance. */
  onChangedFor(listener: (userId: string) => void): void {
    this.broadcast.subscribe(USER_FRAMES_CHANGED, listener);
  }
}

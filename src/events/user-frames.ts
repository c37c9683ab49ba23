import { Injectable } from '@nestjs/common';
import type { UserRow } from '../users/user.entity';
import type { EventType } from './event-types';

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

  add(frame: UserFrame): void {
    this.frames.push(frame);
  }

  get all(): readonly UserFrame[] {
    return this.frames;
  }
}

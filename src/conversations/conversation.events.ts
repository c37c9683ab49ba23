import { ApiProperty } from '@nestjs/swagger';
import { toPublicId } from '../common/ids';
import { CONVERSATION_STATUSES, type ConversationStatus } from './conversation.entity';
import { ConversationResponse } from './conversation.dto';
import { MessageResponse, ReactionResponse } from './message.dto';

/*
 * The payloads of the events this module owns, one class each (documented in the OpenAPI
 * document, whose generated types the console reads), built only here.
 */

/** `message.received`, `message.sent`, `note.created`: the whole message and its conversation as it is now. */
export class MessageAddedEvent {
  @ApiProperty({ type: MessageResponse })
  message!: MessageResponse;

  @ApiProperty({ type: ConversationResponse })
  conversation!: ConversationResponse;

  static of(message: MessageResponse, conversation: ConversationResponse): MessageAddedEvent {
    return { message, conversation };
  }
}

/** `message.status`, `message.media`: the whole message, changed, and the id of its conversation. */
export class MessageChangeEvent {
  @ApiProperty({ type: MessageResponse })
  message!: MessageResponse;

  @ApiProperty({ example: 'conv_01a2047c8e2078c99d14947d2651598e' })
  conversation_id!: string;

  static of(message: MessageResponse): MessageChangeEvent {
    return { message, conversation_id: message.conversation_id };
  }
}

/** `message.reaction`: the whole message with its reactions now, and the reaction that changed (an empty emoji: removed). */
export class MessageReactionEvent {
  @ApiProperty({ type: MessageResponse })
  message!: MessageResponse;

  @ApiProperty({ type: ReactionResponse })
  reaction!: ReactionResponse;

  static of(message: MessageResponse, reaction: ReactionResponse): MessageReactionEvent {
    return { message, reaction };
  }
}

/**
 * `conversation.created`, `conversation.closed`, `conversation.reopened`: the conversation as it is now;
 * `conversation.rated`: with the customer's survey answer in its `csat` (again when their comment arrives).
 */
export class ConversationEvent {
  @ApiProperty({ type: ConversationResponse })
  conversation!: ConversationResponse;

  static of(conversation: ConversationResponse): ConversationEvent {
    return { conversation };
  }
}

class LabelsChange {
  @ApiProperty({ type: [String] })
  from!: string[];

  @ApiProperty({ type: [String] })
  to!: string[];
}

class StatusChange {
  @ApiProperty({ enum: CONVERSATION_STATUSES })
  from!: ConversationStatus;

  @ApiProperty({ enum: CONVERSATION_STATUSES })
  to!: ConversationStatus;
}

class SnoozeChange {
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  from!: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  to!: string | null;
}

class TeamChange {
  @ApiProperty({ type: String, nullable: true, example: 'team_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' })
  from!: string | null;

  @ApiProperty({ type: String, nullable: true })
  to!: string | null;
}

/** What a `conversation.updated` changed: only the fields that did. */
export class ConversationChanges {
  @ApiProperty({ type: TeamChange, required: false, description: 'The team it is handed to (null: none)' })
  team_id?: TeamChange;

  @ApiProperty({ type: LabelsChange, required: false })
  labels?: LabelsChange;

  @ApiProperty({ type: StatusChange, required: false, description: 'A snooze (to `snoozed`) and its end by a merge' })
  status?: StatusChange;

  @ApiProperty({ type: SnoozeChange, required: false })
  snoozed_until?: SnoozeChange;
}

/** `conversation.updated`: labels or team changed, or a snooze set or moved. */
export class ConversationUpdatedEvent {
  @ApiProperty({ type: ConversationResponse })
  conversation!: ConversationResponse;

  @ApiProperty({ type: ConversationChanges })
  changes!: ConversationChanges;

  static of(conversation: ConversationResponse, changes: ConversationChanges): ConversationUpdatedEvent {
    return { conversation, changes };
  }
}

/** `conversation.assigned`: the conversation, its assignee now and before (null: nobody), and who assigned it. */
export class ConversationAssignedEvent {
  @ApiProperty({ type: ConversationResponse })
  conversation!: ConversationResponse;

  @ApiProperty({ type: String, nullable: true, example: 'user_01a2047c8e2078c99d14947d2651598e' })
  assigned_to!: string | null;

  @ApiProperty({ type: String, nullable: true })
  previous_assigned_to!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Who assigned it; null: the router (the inbox assigns by itself)' })
  assigned_by!: string | null;

  static of(
    conversation: ConversationResponse,
    change: { assignedTo: string | null; previousAssignedTo: string | null; assignedBy: string | null },
  ): ConversationAssignedEvent {
    return {
      conversation,
      assigned_to: publicUserId(change.assignedTo),
      previous_assigned_to: publicUserId(change.previousAssignedTo),
      assigned_by: publicUserId(change.assignedBy),
    };
  }
}

function publicUserId(id: string | null): string | null {
  return id === null ? null : toPublicId('user', id);
}

declare module '../events/event-payloads' {
  interface EventPayloads {
    'message.received': MessageAddedEvent;
    'message.sent': MessageAddedEvent;
    'note.created': MessageAddedEvent;
    'message.status': MessageChangeEvent;
    'message.media': MessageChangeEvent;
    'message.reaction': MessageReactionEvent;
    'conversation.created': ConversationEvent;
    'conversation.closed': ConversationEvent;
    'conversation.reopened': ConversationEvent;
    'conversation.rated': ConversationEvent;
    'conversation.updated': ConversationUpdatedEvent;
    'conversation.assigned': ConversationAssignedEvent;
  }
}

/** The documented class of each payload above. */
export const CONVERSATION_EVENT_SCHEMAS = {
  'message.received': MessageAddedEvent,
  'message.sent': MessageAddedEvent,
  'note.created': MessageAddedEvent,
  'message.status': MessageChangeEvent,
  'message.media': MessageChangeEvent,
  'message.reaction': MessageReactionEvent,
  'conversation.created': ConversationEvent,
  'conversation.closed': ConversationEvent,
  'conversation.reopened': ConversationEvent,
  'conversation.rated': ConversationEvent,
  'conversation.updated': ConversationUpdatedEvent,
  'conversation.assigned': ConversationAssignedEvent,
};

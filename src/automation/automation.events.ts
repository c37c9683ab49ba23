import { ApiProperty } from '@nestjs/swagger';
import { ConversationResponse } from '../conversations/conversation.dto';

/*
 * The payload of the event this module owns (documented in the OpenAPI document), built only here.
 */

/** `automation.triggered`: a `send_webhook_event` action of a rule or a macro, for the integrations that follow it. */
export class AutomationTriggeredEvent {
  @ApiProperty({ example: 'vip_wrote', description: "The action's `name`" })
  name!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'rule_01a2047c8e2078c99d14947d2651598e',
    description: 'The rule that ran it; null for a macro',
  })
  rule_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'The macro that ran it; null for a rule' })
  macro_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'The agent who ran the macro; null for a rule' })
  run_by!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'evt_01a2047c8e2078c99d14947d2651598e',
    description: 'The event the rule ran on; null for a macro',
  })
  trigger_event_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'message.received' })
  trigger_event_type!: string | null;

  @ApiProperty({ type: ConversationResponse, description: 'The conversation as the actions before this one left it' })
  conversation!: ConversationResponse;
}

declare module '../events/event-payloads' {
  interface EventPayloads {
    'automation.triggered': AutomationTriggeredEvent;
  }
}

/** The documented class of the payload above. */
export const AUTOMATION_EVENT_SCHEMAS = { 'automation.triggered': AutomationTriggeredEvent };

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, Length, Max, Min, ValidateBy } from 'class-validator';
import { toPublicId } from '../common/ids';
import { IsOmittable } from '../common/omittable';
import { trimmed } from '../common/transforms';
import type { ActionOutcome } from './actions.service';
import type { RuleRow, RuleRunRow } from './rule.entity';
import {
  ACTION_TYPES,
  actionsProblem,
  CONDITION_FIELDS,
  CONDITION_OPERATORS,
  conditionsProblem,
  RULE_EVENTS,
  type RuleAction,
  type RuleCondition,
  type RuleEvent,
} from './rule-logic';

/** Validates a list of conditions: the 400 names the first one at fault and why. */
const IsConditions = (): PropertyDecorator =>
  ValidateBy({
    name: 'isConditions',
    validator: {
      validate: (value: unknown) => conditionsProblem(value) === null,
      defaultMessage: (args) => conditionsProblem(args?.value) ?? 'conditions is invalid',
    },
  });

/** Validates a list of actions: the 400 names the first one at fault and why. */
export const IsActions = (): PropertyDecorator =>
  ValidateBy({
    name: 'isActions',
    validator: {
      validate: (value: unknown) => actionsProblem(value) === null,
      defaultMessage: (args) => actionsProblem(args?.value) ?? 'actions is invalid',
    },
  });

export class RuleConditionDoc {
  @ApiProperty({
    example: 'message.text',
    description: `One of ${CONDITION_FIELDS.join(', ')}`,
  })
  field!: string;

  @ApiProperty({ enum: CONDITION_OPERATORS })
  operator!: string;

  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'boolean' }],
    example: 'refund',
    description:
      'A string; a list of strings for `in`; a regular expression in RE2 syntax for `matches` (linear time: no backreferences or ' +
      'lookaround); true or false for `within_business_hours` (which takes equals and not_equals only). Text compares ' +
      'case- and accent-insensitively, but for `matches`. On `contact.tags` and `conversation.labels` a condition holds when one of ' +
      'them satisfies it (`equals`/`contains`: has this one), a negation when none does',
  })
  value!: string | string[] | boolean;
}

export class RuleActionDoc {
  @ApiProperty({ enum: ACTION_TYPES })
  type!: string;

  @ApiPropertyOptional({ example: 'team_01a2047c8e2078c99d14947d2651598e', description: 'assign_team' })
  team_id?: string;

  @ApiPropertyOptional({ example: 'user_01a2047c8e2078c99d14947d2651598e', description: 'assign_user' })
  user_id?: string;

  @ApiPropertyOptional({ type: [String], example: ['refund'], description: 'add_labels, remove_labels: names of labels of the catalogue' })
  labels?: string[];

  @ApiPropertyOptional({ example: 'We got your request and answer within a day.', description: 'send_text, add_note' })
  text?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { name: 'order_update', language: 'en_US', components: [] },
    description: 'send_template: `{name, language, components?}` as a send takes it (a header media by link)',
  })
  template?: Record<string, unknown>;

  @ApiPropertyOptional({ example: '4h', description: 'snooze: from 1m to 90d' })
  duration?: string;

  @ApiPropertyOptional({ example: 'tier', description: "set_attribute: the contact attribute's key" })
  key?: string;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
    example: 'vip',
    description: 'set_attribute',
  })
  value?: string | number | boolean;

  @ApiPropertyOptional({ example: 'vip_wrote', description: 'send_webhook_event: the `name` of the `automation.triggered` event' })
  name?: string;
}

export class CreateRuleDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Refund requests to billing' })
  @Transform(trimmed)
  @IsString()
  @Length(1, 100)
  name!: string;

  @ApiPropertyOptional({ description: 'Default true' })
  @IsOmittable()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;

  @ApiProperty({ enum: RULE_EVENTS })
  @IsIn(RULE_EVENTS, { message: `event must be one of ${RULE_EVENTS.join(', ')}` })
  event!: RuleEvent;

  @ApiProperty({ type: [RuleConditionDoc], description: 'All must hold (none: always); at most 20' })
  @IsConditions()
  conditions!: RuleCondition[];

  @ApiProperty({ type: [RuleActionDoc], description: 'Done in order; 1 to 20' })
  @IsActions()
  actions!: RuleAction[];

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 100000,
    description: 'Rules run by position: one given takes that place, the rules there and after it move down. Default: after the last',
  })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(100_000)
  position?: number;
}

export class UpdateRuleDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({ description: 'Turning it on clears `disabled_reason`' })
  @IsOmittable()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;

  @ApiPropertyOptional({ enum: RULE_EVENTS })
  @IsOmittable()
  @IsIn(RULE_EVENTS, { message: `event must be one of ${RULE_EVENTS.join(', ')}` })
  event?: RuleEvent;

  @ApiPropertyOptional({ type: [RuleConditionDoc], description: 'Replaced whole' })
  @IsOmittable()
  @IsConditions()
  conditions?: RuleCondition[];

  @ApiPropertyOptional({ type: [RuleActionDoc], description: 'Replaced whole' })
  @IsOmittable()
  @IsActions()
  actions?: RuleAction[];

  @ApiPropertyOptional({ minimum: 0, maximum: 100000, description: 'Moves it there: the rules there and after it move down' })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(100_000)
  position?: number;
}

export class RuleResponse {
  @ApiProperty({ example: 'rule_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  enabled!: boolean;

  @ApiProperty({ enum: RULE_EVENTS })
  event!: RuleEvent;

  @ApiProperty({ type: [RuleConditionDoc] })
  conditions!: RuleConditionDoc[];

  @ApiProperty({ type: [RuleActionDoc] })
  actions!: RuleActionDoc[];

  @ApiProperty()
  position!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'label "refund" no longer exists',
    description: 'Why the service turned it off: something its actions name is gone. Null when it is on, or an admin turned it off',
  })
  disabled_reason!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(row: RuleRow): RuleResponse {
    return {
      id: toPublicId('rule', row.id),
      name: row.name,
      enabled: row.enabled,
      event: row.event,
      conditions: row.conditions,
      actions: row.actions,
      position: row.position,
      disabled_reason: row.disabled_reason,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

export class ActionOutcomeResponse {
  @ApiProperty({ enum: ACTION_TYPES })
  type!: string;

  @ApiProperty({ enum: ['done', 'unchanged', 'skipped'], description: '`unchanged`: it was so already; `skipped`: refused, see detail' })
  outcome!: ActionOutcome['outcome'];

  @ApiProperty({
    type: String,
    nullable: true,
    example: "outside the customer's 24-hour window",
    description: 'Why it was skipped; the message sent (msg_…) for a send',
  })
  detail!: string | null;
}

export class RuleRunResponse {
  @ApiProperty({ example: 'run_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ enum: RULE_EVENTS })
  event!: RuleEvent;

  @ApiProperty({ example: 'evt_01a2047c8e2078c99d14947d2651598e', description: 'The event it ran on' })
  event_id!: string;

  @ApiProperty({ type: String, nullable: true, example: 'conv_01a2047c8e2078c99d14947d2651598e' })
  conversation_id!: string | null;

  @ApiProperty({
    enum: ['acted', 'disabled'],
    description: '`disabled`: something its actions name was gone, and the rule was turned off instead',
  })
  outcome!: RuleRunRow['outcome'];

  @ApiProperty({ type: [ActionOutcomeResponse], description: 'What each action did, in order' })
  actions!: ActionOutcomeResponse[];

  @ApiProperty({ type: String, nullable: true })
  reason!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  static of(row: RuleRunRow): RuleRunResponse {
    return {
      id: toPublicId('run', row.id),
      event: row.event_type,
      event_id: toPublicId('evt', row.trigger_id),
      conversation_id: row.conversation_id && toPublicId('conv', row.conversation_id),
      outcome: row.outcome,
      actions: row.actions,
      reason: row.reason,
      created_at: row.created_at.toISOString(),
    };
  }
}

import type { ActionOutcome } from './actions.service';
import type { RuleAction, RuleCondition, RuleEvent } from './rule-logic';

/** A row of `automation_rules`. */
export interface RuleRow {
  id: string;
  name: string;
  /** False when an admin turned it off, or when the service did (`disabled_reason`). */
  enabled: boolean;
  event: RuleEvent;
  conditions: RuleCondition[];
  actions: RuleAction[];
  /** Rules of an event run in this order (then oldest first). */
  position: number;
  /** Why the service turned it off (a team, user, label or template it names is gone); null when an admin did or it is on. */
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A row of `automation_triggers`: one event rules run on, recorded work (its id is the event's). */
export interface TriggerRow {
  id: string;
  event_type: RuleEvent;
  /** The event's payload: its conversation (and message). */
  data: Record<string, unknown>;
  occurred_at: Date;
  attempts: number;
}

/** A row of `automation_runs`: what one rule did on one trigger (its conditions held). */
export interface RuleRunRow {
  id: string;
  rule_id: string;
  trigger_id: string;
  event_type: RuleEvent;
  conversation_id: string | null;
  /**
   * `acted`: its actions ran (each with its outcome); `disabled`: it names what no longer exists,
   * and was turned off instead; `failed`: an action failed unexpectedly, and the rule's changes were undone.
   */
  outcome: 'acted' | 'disabled' | 'failed';
  actions: ActionOutcome[];
  reason: string | null;
  created_at: Date;
}

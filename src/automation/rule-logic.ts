import { RE2JS } from 're2js';
import { parsePublicId } from '../common/ids';
import { foldForSearch } from '../common/search';
import { parseDuration } from '../config/duration';
import { attributeKeyProblem, isAttributeValue, type AttributeValue } from '../contacts/contact-attributes';

/*
 * What a rule or a macro is made of, pure: the events a rule runs on, its conditions (checked
 * here against the facts of one conversation) and its actions (checked here for their shape; the
 * actions service does them). The API's validation and the run use the same functions.
 */

export const RULE_EVENTS = ['conversation.created', 'message.received', 'conversation.closed'] as const;
export type RuleEvent = (typeof RULE_EVENTS)[number];

export const CONDITION_OPERATORS = ['equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'in', 'matches'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** The fields a condition reads; `contact.attributes.<key>` names any attribute. */
export const CONDITION_FIELDS = [
  'message.text',
  'contact.name',
  'contact.phone',
  'contact.tags',
  'contact.attributes.<key>',
  'conversation.inbox_id',
  'conversation.labels',
  'within_business_hours',
] as const;

export interface RuleCondition {
  field: string;
  operator: ConditionOperator;
  /** A string; a list of strings for `in`; true or false for `within_business_hours`. */
  value: string | string[] | boolean;
}

export const ACTION_TYPES = [
  'assign_team',
  'assign_user',
  'add_labels',
  'remove_labels',
  'send_text',
  'send_template',
  'add_note',
  'snooze',
  'close',
  'set_attribute',
  'send_webhook_event',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export type RuleAction =
  | { type: 'assign_team'; team_id: string }
  | { type: 'assign_user'; user_id: string }
  | { type: 'add_labels' | 'remove_labels'; labels: string[] }
  | { type: 'send_text' | 'add_note'; text: string }
  | { type: 'send_template'; template: { name: string; language: string; components?: Record<string, unknown>[] } }
  | { type: 'snooze'; duration: string }
  | { type: 'close' }
  | { type: 'set_attribute'; key: string; value: AttributeValue }
  | { type: 'send_webhook_event'; name: string };

export const MAX_CONDITIONS = 20;
export const MAX_ACTIONS = 20;
const MAX_VALUE_LENGTH = 1000;
const MAX_IN_VALUES = 100;
const MAX_PATTERN_LENGTH = 500;
const MAX_TEXT_LENGTH = 4096;
const MAX_LABELS = 20;
const SNOOZE_MIN_MS = 60_000;
const SNOOZE_MAX_MS = 90 * 86_400_000;
const WEBHOOK_EVENT_NAME = /^[a-z][a-z0-9_.-]{0,63}$/;

/** The facts of one conversation a rule's conditions read, as the rule runs. */
export interface RuleFacts {
  /** The triggering message's text (message.received); null for the conversation events. */
  messageText: string | null;
  contactName: string | null;
  contactPhone: string | null;
  contactTags: string[];
  contactAttributes: Record<string, AttributeValue>;
  /** The public `inb_` id. */
  inboxId: string;
  labels: string[];
  /** Whether the event happened inside the inbox's business hours. */
  withinBusinessHours: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.trim().length >= 1 && value.length <= max;

/** Why `fields` of `what` has keys it should not, or null. */
function strayKey(what: Record<string, unknown>, allowed: readonly string[], at: string): string | null {
  const stray = Object.keys(what).find((key) => !allowed.includes(key));
  return stray === undefined ? null : `${at} has no field ${stray}`;
}

/** Why `condition` (at `at`, e.g. `conditions[0]`) is not one, or null. */
export function conditionProblem(condition: unknown, at: string): string | null {
  if (!isObject(condition)) return `${at} must be an object {field, operator, value}`;
  const stray = strayKey(condition, ['field', 'operator', 'value'], at);
  if (stray) return stray;
  const { field, operator, value } = condition;
  if (typeof field !== 'string' || !isField(field))
    return `${at}.field must be one of ${CONDITION_FIELDS.join(', ')} (an attribute's key after contact.attributes.)`;
  if (!(CONDITION_OPERATORS as readonly unknown[]).includes(operator))
    return `${at}.operator must be one of ${CONDITION_OPERATORS.join(', ')}`;
  if (field === 'within_business_hours') {
    if (operator !== 'equals' && operator !== 'not_equals') return `${at}: within_business_hours takes only equals or not_equals`;
    return typeof value === 'boolean' ? null : `${at}.value must be true or false for within_business_hours`;
  }
  if (operator === 'in') {
    if (!Array.isArray(value) || value.length < 1 || value.length > MAX_IN_VALUES || !value.every((item) => isText(item, MAX_VALUE_LENGTH)))
      return `${at}.value must be a list of 1 to ${MAX_IN_VALUES} strings for in`;
    return null;
  }
  if (operator === 'matches') {
    if (!isText(value, MAX_PATTERN_LENGTH)) return `${at}.value must be a regular expression of 1 to ${MAX_PATTERN_LENGTH} characters`;
    const problem = patternProblem(value);
    return problem && `${at}.value is not a regular expression this service runs (RE2 syntax: no backreferences or lookaround): ${problem}`;
  }
  return isText(value, MAX_VALUE_LENGTH) ? null : `${at}.value must be a string of 1 to ${MAX_VALUE_LENGTH} characters`;
}

function isField(field: string): boolean {
  if (field.startsWith('contact.attributes.')) return attributeKeyProblem(field.slice('contact.attributes.'.length)) === null;
  return field !== 'contact.attributes.<key>' && (CONDITION_FIELDS as readonly string[]).includes(field);
}

/** Why `action` (at `at`, e.g. `actions[1]`) is not one, or null. A name of a team, user or label is checked against the database elsewhere. */
export function actionProblem(action: unknown, at: string): string | null {
  if (!isObject(action)) return `${at} must be an object {type, …}`;
  const type = action.type;
  if (!(ACTION_TYPES as readonly unknown[]).includes(type)) return `${at}.type must be one of ${ACTION_TYPES.join(', ')}`;
  const fields: Record<ActionType, readonly string[]> = {
    assign_team: ['team_id'],
    assign_user: ['user_id'],
    add_labels: ['labels'],
    remove_labels: ['labels'],
    send_text: ['text'],
    add_note: ['text'],
    send_template: ['template'],
    snooze: ['duration'],
    close: [],
    set_attribute: ['key', 'value'],
    send_webhook_event: ['name'],
  };
  const stray = strayKey(action, ['type', ...fields[type as ActionType]], at);
  if (stray) return stray;
  switch (type as ActionType) {
    case 'assign_team':
      return typeof action.team_id === 'string' && parsePublicId('team', action.team_id) !== null
        ? null
        : `${at}.team_id must be a team's id (team_…)`;
    case 'assign_user':
      return typeof action.user_id === 'string' && parsePublicId('user', action.user_id) !== null
        ? null
        : `${at}.user_id must be a user's id (user_…)`;
    case 'add_labels':
    case 'remove_labels': {
      const labels = action.labels;
      const valid =
        Array.isArray(labels) && labels.length >= 1 && labels.length <= MAX_LABELS && labels.every((label) => isText(label, 50));
      return valid ? null : `${at}.labels must be a list of 1 to ${MAX_LABELS} label names`;
    }
    case 'send_text':
    case 'add_note':
      return isText(action.text, MAX_TEXT_LENGTH) ? null : `${at}.text must be a text of 1 to ${MAX_TEXT_LENGTH} characters`;
    case 'send_template': {
      const template = action.template;
      if (!isObject(template) || !isText(template.name, 512) || !isText(template.language, 20))
        return `${at}.template must be {name, language, components?}`;
      const stray = strayKey(template, ['name', 'language', 'components'], `${at}.template`);
      if (stray) return stray;
      if (template.components !== undefined && (!Array.isArray(template.components) || !template.components.every(isObject)))
        return `${at}.template.components must be a list of objects, as the Graph API takes them`;
      return null;
    }
    case 'snooze': {
      const ms = typeof action.duration === 'string' ? parseDuration(action.duration) : null;
      return ms !== null && ms >= SNOOZE_MIN_MS && ms <= SNOOZE_MAX_MS
        ? null
        : `${at}.duration must be a duration from 1m to 90d, such as 4h`;
    }
    case 'close':
      return null;
    case 'set_attribute': {
      if (typeof action.key !== 'string') return `${at}.key must be an attribute's key`;
      const keyProblem = attributeKeyProblem(action.key);
      if (keyProblem) return `${at}: ${keyProblem}`;
      return isAttributeValue(action.value) ? null : `${at}.value must be a string of 1 to 1000 characters, a number or a boolean`;
    }
    case 'send_webhook_event':
      return typeof action.name === 'string' && WEBHOOK_EVENT_NAME.test(action.name)
        ? null
        : `${at}.name must be 1 to 64 characters: a lower-case letter, then lower-case letters, digits, _, . or -`;
  }
}

/** The first problem of a list of conditions, or null. */
export function conditionsProblem(conditions: unknown): string | null {
  if (!Array.isArray(conditions) || conditions.length > MAX_CONDITIONS) return `conditions must be a list of at most ${MAX_CONDITIONS}`;
  for (const [index, condition] of conditions.entries()) {
    const problem = conditionProblem(condition, `conditions[${index}]`);
    if (problem) return problem;
  }
  return null;
}

/** The first problem of a list of actions, or null. */
export function actionsProblem(actions: unknown): string | null {
  if (!Array.isArray(actions) || actions.length < 1 || actions.length > MAX_ACTIONS) return `actions must be a list of 1 to ${MAX_ACTIONS}`;
  for (const [index, action] of actions.entries()) {
    const problem = actionProblem(action, `actions[${index}]`);
    if (problem) return problem;
  }
  return null;
}

/** Whether every condition holds (no conditions: always). */
export function conditionsHold(conditions: readonly RuleCondition[], facts: RuleFacts): boolean {
  return conditions.every((condition) => conditionHolds(condition, facts));
}

/**
 * One condition. Text compares case- and accent-insensitively (as the searches fold it), but for
 * `matches`, which runs the pattern as written (`(?i)` makes it case-insensitive). On a list
 * (tags, labels) a condition holds when one element satisfies it: `equals`/`contains` "has this
 * one", `in` "has one of these"; the negations when none does. A missing value (no message text,
 * no such attribute) satisfies only the negations.
 */
export function conditionHolds(condition: RuleCondition, facts: RuleFacts): boolean {
  const { field, operator, value } = condition;
  if (field === 'within_business_hours') return (facts.withinBusinessHours === value) === (operator === 'equals');
  const negated = operator === 'not_equals' || operator === 'not_contains';
  const values = factOf(field, facts);
  const isList = field === 'contact.tags' || field === 'conversation.labels';
  const holds = values.some((text) => holdsFor(operator, text, value, isList));
  return negated ? !holds : holds;
}

function factOf(field: string, facts: RuleFacts): string[] {
  const one = (value: AttributeValue | null | undefined): string[] => (value === null || value === undefined ? [] : [String(value)]);
  if (field.startsWith('contact.attributes.')) {
    // Own keys only: `toString` names no attribute, not Object.prototype's function.
    const key = field.slice('contact.attributes.'.length);
    return Object.hasOwn(facts.contactAttributes, key) ? one(facts.contactAttributes[key]) : [];
  }
  switch (field) {
    case 'message.text':
      return one(facts.messageText);
    case 'contact.name':
      return one(facts.contactName);
    case 'contact.phone':
      return one(facts.contactPhone);
    case 'contact.tags':
      return facts.contactTags;
    case 'conversation.labels':
      return facts.labels;
    case 'conversation.inbox_id':
      return [facts.inboxId];
    default:
      return [];
  }
}

/** The positive test of `operator` (a negation's counterpart) on one text. */
function holdsFor(operator: ConditionOperator, text: string, value: RuleCondition['value'], isList: boolean): boolean {
  if (operator === 'matches')
    return compiled(value as string)
      .matcher(text)
      .find();
  const folded = foldForSearch(text);
  if (operator === 'in') return (value as string[]).some((item) => foldForSearch(item) === folded);
  const wanted = foldForSearch(value as string);
  if (operator === 'starts_with') return folded.startsWith(wanted);
  // On a list, "contains" is "has this element", as equals is.
  if (operator === 'equals' || operator === 'not_equals' || isList) return folded === wanted;
  return folded.includes(wanted);
}

/** Compiled patterns, by their text: RE2 runs in time linear in the text, so no pattern can stall the process. */
const patterns = new Map<string, RE2JS>();
const MAX_COMPILED = 1000;

function compiled(pattern: string): RE2JS {
  let regex = patterns.get(pattern);
  if (!regex) {
    regex = RE2JS.compile(pattern);
    if (patterns.size >= MAX_COMPILED) patterns.delete(patterns.keys().next().value!);
    patterns.set(pattern, regex);
  }
  return regex;
}

function patternProblem(pattern: string): string | null {
  try {
    compiled(pattern);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

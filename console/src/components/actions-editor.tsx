import type { Schemas } from '../api/client';
import { valueOf } from '../ui';
import { useWorkspace } from '../workspace';

export type RuleAction = Schemas['RuleActionDoc'];
export type RuleCondition = Schemas['RuleConditionDoc'];
type ActionType = RuleAction['type'];

/** Each action in an agent's words, and what a new one of its type starts as. */
export const ACTION_KINDS: { type: ActionType; label: string; fresh: () => RuleAction }[] = [
  { type: 'add_labels', label: 'Add labels', fresh: () => ({ type: 'add_labels', labels: [] }) },
  { type: 'remove_labels', label: 'Remove labels', fresh: () => ({ type: 'remove_labels', labels: [] }) },
  { type: 'assign_team', label: 'Assign to a team', fresh: () => ({ type: 'assign_team', team_id: '' }) },
  { type: 'assign_user', label: 'Assign to an agent', fresh: () => ({ type: 'assign_user', user_id: '' }) },
  { type: 'send_text', label: 'Send a message', fresh: () => ({ type: 'send_text', text: '' }) },
  {
    type: 'send_template',
    label: 'Send a template',
    fresh: () => ({ type: 'send_template', template: { name: '', language: 'en_US' } }),
  },
  { type: 'add_note', label: 'Add a private note', fresh: () => ({ type: 'add_note', text: '' }) },
  { type: 'snooze', label: 'Snooze', fresh: () => ({ type: 'snooze', duration: '4h' }) },
  { type: 'close', label: 'Close', fresh: () => ({ type: 'close' }) },
  { type: 'set_attribute', label: 'Set a contact attribute', fresh: () => ({ type: 'set_attribute', key: '', value: '' }) },
  { type: 'send_webhook_event', label: 'Tell the webhooks', fresh: () => ({ type: 'send_webhook_event', name: '' }) },
];

export function actionLabel(action: RuleAction): string {
  return ACTION_KINDS.find((kind) => kind.type === action.type)?.label ?? action.type;
}

/** A list of actions as forms: one row each, its fields by its type, reordered and removed by buttons. */
export function ActionsEditor(props: { actions: RuleAction[]; onChange: (actions: RuleAction[]) => void }) {
  const { actions, onChange } = props;
  const set = (index: number, action: RuleAction) => onChange(actions.map((a, i) => (i === index ? action : a)));
  const move = (index: number, by: number) => {
    const next = actions.slice();
    [next[index], next[index + by]] = [next[index + by], next[index]];
    onChange(next);
  };
  return (
    <fieldset class="rule-rows">
      <legend>Actions, in order</legend>
      {actions.map((action, index) => (
        <div class="rule-row" role="group" aria-label={`Action ${index + 1}`}>
          <select
            aria-label={`Action ${index + 1}: type`}
            value={action.type}
            onChange={(e) => set(index, ACTION_KINDS.find((kind) => kind.type === valueOf(e))!.fresh())}
          >
            {ACTION_KINDS.map((kind) => (
              <option value={kind.type}>{kind.label}</option>
            ))}
          </select>
          <ActionFields action={action} index={index} onChange={(changed) => set(index, changed)} />
          <button
            type="button"
            class="link-button"
            disabled={index === 0}
            onClick={() => move(index, -1)}
            aria-label={`Move up action ${index + 1}`}
          >
            Move up
          </button>
          <button
            type="button"
            class="link-button danger-text"
            onClick={() => onChange(actions.filter((_, i) => i !== index))}
            aria-label={`Remove action ${index + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="button secondary" onClick={() => onChange([...actions, ACTION_KINDS[0].fresh()])}>
        Add action
      </button>
    </fieldset>
  );
}

function ActionFields(props: { action: RuleAction; index: number; onChange: (action: RuleAction) => void }) {
  const { action, index, onChange } = props;
  const { teams, users, labels } = useWorkspace();
  const name = (what: string) => `Action ${index + 1}: ${what}`;
  switch (action.type) {
    case 'add_labels':
    case 'remove_labels':
      return (
        <span class="rule-checks" role="group" aria-label={name('labels')}>
          {labels.length === 0 && <span>No labels yet</span>}
          {labels.map((label) => {
            const on = (action.labels ?? []).includes(label.name);
            return (
              <label class="check">
                <input
                  type="checkbox"
                  checked={on}
                  onChange={() =>
                    onChange({
                      ...action,
                      labels: on ? action.labels!.filter((l) => l !== label.name) : [...(action.labels ?? []), label.name],
                    })
                  }
                />
                {label.name}
              </label>
            );
          })}
        </span>
      );
    case 'assign_team':
      return (
        <select aria-label={name('team')} value={action.team_id} onChange={(e) => onChange({ ...action, team_id: valueOf(e) })}>
          <option value="">Choose a team</option>
          {teams.map((team) => (
            <option value={team.id}>{team.name}</option>
          ))}
        </select>
      );
    case 'assign_user':
      return (
        <select aria-label={name('agent')} value={action.user_id} onChange={(e) => onChange({ ...action, user_id: valueOf(e) })}>
          <option value="">Choose an agent</option>
          {users
            .filter((user) => user.status === 'active')
            .map((user) => (
              <option value={user.id}>{user.name}</option>
            ))}
        </select>
      );
    case 'send_text':
    case 'add_note':
      return (
        <textarea
          aria-label={name(action.type === 'add_note' ? 'note' : 'message')}
          maxLength={4096}
          rows={2}
          value={action.text}
          onInput={(e) => onChange({ ...action, text: e.currentTarget.value })}
        />
      );
    case 'send_template': {
      const template = (action.template ?? {}) as { name?: string; language?: string };
      return (
        <span class="rule-inline">
          <input
            type="text"
            aria-label={name('template name')}
            placeholder="Template name"
            value={template.name ?? ''}
            onInput={(e) => onChange({ ...action, template: { ...template, name: valueOf(e) } })}
          />
          <input
            type="text"
            aria-label={name('template language')}
            placeholder="en_US"
            size={6}
            value={template.language ?? ''}
            onInput={(e) => onChange({ ...action, template: { ...template, language: valueOf(e) } })}
          />
        </span>
      );
    }
    case 'snooze':
      return (
        <input
          type="text"
          aria-label={name('for how long (30m, 4h, 2d)')}
          size={6}
          value={action.duration}
          onInput={(e) => onChange({ ...action, duration: valueOf(e) })}
        />
      );
    case 'set_attribute':
      return (
        <span class="rule-inline">
          <input
            type="text"
            aria-label={name('attribute')}
            placeholder="Attribute"
            value={action.key}
            onInput={(e) => onChange({ ...action, key: valueOf(e) })}
          />
          <input
            type="text"
            aria-label={name('value')}
            placeholder="Value"
            value={String(action.value ?? '')}
            onInput={(e) => onChange({ ...action, value: valueOf(e) })}
          />
        </span>
      );
    case 'send_webhook_event':
      return (
        <input
          type="text"
          aria-label={name('event name')}
          placeholder="vip_wrote"
          value={action.name}
          onInput={(e) => onChange({ ...action, name: valueOf(e) })}
        />
      );
    default:
      return null;
  }
}

/** The fields a condition reads, in an admin's words; `contact.attributes.` takes a key after it. */
const CONDITION_FIELDS: { field: string; label: string }[] = [
  { field: 'message.text', label: 'Message text' },
  { field: 'contact.name', label: 'Contact name' },
  { field: 'contact.phone', label: 'Contact phone' },
  { field: 'contact.tags', label: 'Contact tags' },
  { field: 'contact.attributes.', label: 'Contact attribute' },
  { field: 'conversation.inbox_id', label: 'Inbox' },
  { field: 'conversation.labels', label: 'Conversation labels' },
  { field: 'within_business_hours', label: 'Within business hours' },
];
const OPERATORS: { operator: RuleCondition['operator']; label: string }[] = [
  { operator: 'equals', label: 'is' },
  { operator: 'not_equals', label: 'is not' },
  { operator: 'contains', label: 'contains' },
  { operator: 'not_contains', label: 'does not contain' },
  { operator: 'starts_with', label: 'starts with' },
  { operator: 'in', label: 'is one of (comma-separated)' },
  { operator: 'matches', label: 'matches the pattern' },
];

/** A list of conditions as forms: field, operator and value on one row each. */
export function ConditionsEditor(props: { conditions: RuleCondition[]; onChange: (conditions: RuleCondition[]) => void }) {
  const { conditions, onChange } = props;
  const { inboxes } = useWorkspace();
  const set = (index: number, changes: Partial<RuleCondition>) =>
    onChange(conditions.map((c, i) => (i === index ? { ...c, ...changes } : c)));
  return (
    <fieldset class="rule-rows">
      <legend>Conditions (all must hold; none: always)</legend>
      {conditions.map((condition, index) => {
        const attribute = condition.field.startsWith('contact.attributes.');
        const fieldChoice = attribute ? 'contact.attributes.' : condition.field;
        const hours = condition.field === 'within_business_hours';
        const name = (what: string) => `Condition ${index + 1}: ${what}`;
        return (
          <div class="rule-row" role="group" aria-label={`Condition ${index + 1}`}>
            <select
              aria-label={name('field')}
              value={fieldChoice}
              onChange={(e) => {
                const field = valueOf(e);
                set(index, field === 'within_business_hours' ? { field, operator: 'equals', value: true } : { field, value: '' });
              }}
            >
              {CONDITION_FIELDS.map((f) => (
                <option value={f.field}>{f.label}</option>
              ))}
            </select>
            {attribute && (
              <input
                type="text"
                aria-label={name('attribute')}
                placeholder="Attribute"
                value={condition.field.slice('contact.attributes.'.length)}
                onInput={(e) => set(index, { field: `contact.attributes.${valueOf(e)}` })}
              />
            )}
            {hours ? (
              <select
                aria-label={name('value')}
                value={String(condition.value)}
                onChange={(e) => set(index, { operator: 'equals', value: valueOf(e) === 'true' })}
              >
                <option value="true">yes</option>
                <option value="false">no</option>
              </select>
            ) : (
              <>
                <select
                  aria-label={name('operator')}
                  value={condition.operator}
                  onChange={(e) => {
                    const operator = valueOf(e) as RuleCondition['operator'];
                    const text = Array.isArray(condition.value) ? condition.value.join(', ') : String(condition.value);
                    set(index, { operator, value: operator === 'in' ? splitList(text) : text });
                  }}
                >
                  {OPERATORS.map((o) => (
                    <option value={o.operator}>{o.label}</option>
                  ))}
                </select>
                {condition.field === 'conversation.inbox_id' && condition.operator !== 'in' ? (
                  <select aria-label={name('value')} value={String(condition.value)} onChange={(e) => set(index, { value: valueOf(e) })}>
                    <option value="">Choose an inbox</option>
                    {inboxes.map((inbox) => (
                      <option value={inbox.id}>{inbox.name}</option>
                    ))}
                  </select>
                ) : (
                  <input
                    type="text"
                    aria-label={name('value')}
                    value={Array.isArray(condition.value) ? condition.value.join(', ') : String(condition.value)}
                    onInput={(e) => set(index, { value: condition.operator === 'in' ? splitList(valueOf(e)) : valueOf(e) })}
                  />
                )}
              </>
            )}
            <button
              type="button"
              class="link-button danger-text"
              onClick={() => onChange(conditions.filter((_, i) => i !== index))}
              aria-label={`Remove condition ${index + 1}`}
            >
              Remove
            </button>
          </div>
        );
      })}
      <button
        type="button"
        class="button secondary"
        onClick={() => onChange([...conditions, { field: 'message.text', operator: 'contains', value: '' }])}
      >
        Add condition
      </button>
    </fieldset>
  );
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** A macro's name as a `/` command: lower-case words joined by `-`. */
export function macroCommand(macro: { name: string }): string {
  return macro.name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
}

import { useEffect, useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { actionLabel, ActionsEditor, ConditionsEditor, type RuleAction, type RuleCondition } from '../components/actions-editor';
import { fullTime } from '../format';
import { Dialog, ErrorNote, Field, LoadMore, PageHeader, useAction, usePages, valueOf } from '../ui';

type Rule = Schemas['RuleResponse'];
type RuleEvent = Rule['event'];

const EVENTS: { event: RuleEvent; label: string }[] = [
  { event: 'message.received', label: 'A customer writes' },
  { event: 'conversation.created', label: 'A conversation starts' },
  { event: 'conversation.closed', label: 'A conversation is closed' },
];
const eventLabel = (event: RuleEvent) => EVENTS.find((e) => e.event === event)?.label ?? event;

/** The automation rules in the order they run: on, off, edited in forms, and each one's run log. */
export function AdminAutomation() {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [runsOf, setRunsOf] = useState<Rule | null>(null);
  useEffect(() => {
    void api.get('/api/v1/automation-rules').then((page) => setRules(page.data));
  }, [version]);
  const reload = () => setVersion((v) => v + 1);
  const toggle = useAction(async (rule: Rule) => {
    await api.patch('/api/v1/automation-rules/{id}', { params: { id: rule.id }, body: { enabled: !rule.enabled } });
    reload();
  });
  const remove = useAction(async (rule: Rule) => {
    if (!confirm(`Delete the rule ${rule.name} and its run log?`)) return;
    await api.delete('/api/v1/automation-rules/{id}', { params: { id: rule.id } });
    reload();
  });
  return (
    <section class="page">
      <PageHeader title="Automation rules">
        <button type="button" class="button" onClick={() => setEditing('new')}>
          New rule
        </button>
      </PageHeader>
      <p class="muted">Rules run in this order after each change commits, once per event. What a rule does never sets off another rule.</p>
      <ErrorNote error={toggle.error ?? remove.error} />
      {rules && rules.length === 0 && <p>No rules yet.</p>}
      {rules && rules.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">When</th>
              <th scope="col">Does</th>
              <th scope="col">On</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => (
              <tr>
                <td>
                  {rule.name}
                  {rule.disabled_reason && (
                    <p class="error" role="note">
                      Turned off: {rule.disabled_reason}
                    </p>
                  )}
                </td>
                <td>
                  {eventLabel(rule.event)}
                  {rule.conditions.length > 0 && `, if ${rule.conditions.length} condition${rule.conditions.length === 1 ? '' : 's'} hold`}
                </td>
                <td>{rule.actions.map(actionLabel).join(', ')}</td>
                <td>
                  <input
                    type="checkbox"
                    checked={rule.enabled}
                    aria-label={`Rule ${rule.name} is on`}
                    onChange={() => void toggle.run(rule)}
                  />
                </td>
                <td class="row-actions">
                  <button type="button" class="link-button" onClick={() => setEditing(rule)} aria-label={`Edit the rule ${rule.name}`}>
                    Edit
                  </button>
                  <button type="button" class="link-button" onClick={() => setRunsOf(rule)} aria-label={`Runs of the rule ${rule.name}`}>
                    Runs
                  </button>
                  <button
                    type="button"
                    class="link-button danger-text"
                    onClick={() => void remove.run(rule)}
                    aria-label={`Delete the rule ${rule.name}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && (
        <RuleEditor
          rule={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
      {runsOf && <RuleRuns rule={runsOf} onClose={() => setRunsOf(null)} />}
    </section>
  );
}

/** A rule as forms: its name, its event, its conditions and its actions. */
function RuleEditor(props: { rule: Rule | null; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(props.rule?.name ?? '');
  const [event, setEvent] = useState<RuleEvent>(props.rule?.event ?? 'message.received');
  const [conditions, setConditions] = useState<RuleCondition[]>(props.rule?.conditions ?? []);
  const [actions, setActions] = useState<RuleAction[]>(props.rule?.actions ?? []);
  const save = useAction(async () => {
    const body = { name: name.trim(), event, conditions, actions };
    if (props.rule) await api.patch('/api/v1/automation-rules/{id}', { params: { id: props.rule.id }, body });
    else await api.post('/api/v1/automation-rules', { body });
    props.onSaved();
  });
  return (
    <Dialog title={props.rule ? `Edit the rule ${props.rule.name}` : 'New rule'} onClose={props.onClose}>
      <form
        class="rule-editor"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <Field label="Name">
          <input type="text" required maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="When">
          <select value={event} onChange={(e) => setEvent(valueOf(e) as RuleEvent)}>
            {EVENTS.map((e) => (
              <option value={e.event}>{e.label}</option>
            ))}
          </select>
        </Field>
        <ConditionsEditor conditions={conditions} onChange={setConditions} />
        <ActionsEditor actions={actions} onChange={setActions} />
        <ErrorNote error={save.error} />
        <div class="dialog-actions">
          <button type="submit" class="button" disabled={save.pending || actions.length === 0}>
            Save rule
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** What the rule did each time its conditions held, newest first. */
function RuleRuns(props: { rule: Rule; onClose: () => void }) {
  const runs = usePages(
    (cursor) => api.get('/api/v1/automation-rules/{id}/runs', { params: { id: props.rule.id }, query: { limit: 25, cursor } }),
    [props.rule.id],
  );
  return (
    <Dialog title={`Runs of ${props.rule.name}`} onClose={props.onClose}>
      {runs.items.length === 0 && !runs.loading && <p>It has not run yet.</p>}
      <ol class="run-log">
        {runs.items.map((run) => (
          <li>
            <time dateTime={run.created_at}>{fullTime(run.created_at)}</time>{' '}
            {run.conversation_id && <a href={`/conversations/${run.conversation_id}`}>the conversation</a>}:{' '}
            {run.outcome === 'disabled'
              ? `turned off: ${run.reason}`
              : run.actions
                  .map(
                    (action) =>
                      `${action.type.replace(/_/g, ' ')} ${action.outcome}${action.outcome === 'skipped' ? ` (${action.detail})` : ''}`,
                  )
                  .join('; ')}
          </li>
        ))}
      </ol>
      <LoadMore hasMore={runs.hasMore} loading={runs.loading} onMore={() => void runs.more()} />
    </Dialog>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { api, type Conversation, type Schemas } from '../api/client';
import { valueOf } from '../ui';
import { AVAILABILITY_LABELS } from './availability';
import { useWorkspace } from '../workspace';

const SNOOZES: { label: string; until: () => Date }[] = [
  { label: '1 hour', until: () => new Date(Date.now() + 3_600_000) },
  { label: '4 hours', until: () => new Date(Date.now() + 4 * 3_600_000) },
  {
    label: 'Tomorrow 9:00',
    until: () => {
      const date = new Date();
      date.setDate(date.getDate() + 1);
      date.setHours(9, 0, 0, 0);
      return date;
    },
  },
  { label: 'Next week', until: () => new Date(Date.now() + 7 * 86_400_000) },
];

/** Assign, snooze, label, close and reopen; `a` assigns to me and `e` closes. */
export function ConversationActions(props: {
  conversation: Conversation;
  onChanged: (c: Conversation) => void;
  onError: (e: unknown) => void;
}) {
  const { conversation } = props;
  const { users, labels, me, teams, reloadUsers } = useWorkspace();
  const inboxTeams = teams.filter((team) => team.inbox_ids.includes(conversation.inbox_id) || team.id === conversation.team_id);
  const [labelsOpen, setLabelsOpen] = useState(false);
  const [macros, setMacros] = useState<Schemas['MacroResponse'][]>([]);
  useEffect(() => {
    void api.get('/api/v1/macros').then((page) => setMacros(page.data));
  }, []);
  const runMacro = async (macroId: string) => {
    try {
      const ran = await api.post('/api/v1/conversations/{id}/macros/{macro_id}', { params: { id: conversation.id, macro_id: macroId } });
      props.onChanged(ran.conversation);
      const skipped = ran.actions.filter((action) => action.outcome === 'skipped');
      if (skipped.length > 0)
        props.onError(new Error(`Skipped: ${skipped.map((action) => `${action.type.replace(/_/g, ' ')} (${action.detail})`).join('; ')}`));
    } catch (caught) {
      props.onError(caught);
    }
  };

  const update = async (body: {
    status?: 'open' | 'snoozed' | 'closed';
    snoozed_until?: string;
    assigned_to?: string | null;
    team_id?: string | null;
    labels?: string[];
  }) => {
    try {
      props.onChanged(await api.patch('/api/v1/conversations/{id}', { params: { id: conversation.id }, body }));
    } catch (caught) {
      props.onError(caught);
    }
  };

  // Availability changes all day: the picker's is read again for each conversation opened.
  useEffect(reloadUsers, [conversation.id]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as HTMLElement).closest('input, textarea, select') || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === 'a') void update({ assigned_to: me.id });
      else if (event.key === 'e' && conversation.status !== 'closed') void update({ status: 'closed' });
      else return;
      event.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [conversation]);

  return (
    <div class="actions" role="toolbar" aria-label="Conversation actions">
      <label class="inline-field">
        <span class="field-label">Assignee</span>
        <select value={conversation.assigned_to ?? ''} onChange={(event) => void update({ assigned_to: valueOf(event) || null })}>
          <option value="">Unassigned</option>
          {users
            .filter((user) => user.status === 'active')
            .map((user) => (
              <option value={user.id}>
                {user.id === me.id ? `${user.name} (me)` : user.name} · {AVAILABILITY_LABELS[user.availability].toLowerCase()}
              </option>
            ))}
        </select>
      </label>
      {inboxTeams.length > 0 && (
        <label class="inline-field">
          <span class="field-label">Team</span>
          <select value={conversation.team_id ?? ''} onChange={(event) => void update({ team_id: valueOf(event) || null })}>
            <option value="">No team</option>
            {inboxTeams.map((team) => (
              <option value={team.id}>{team.name}</option>
            ))}
          </select>
        </label>
      )}
      {conversation.assigned_to !== me.id && (
        <button type="button" class="button secondary" onClick={() => void update({ assigned_to: me.id })}>
          Assign to me
        </button>
      )}
      <div class="popover-anchor">
        <button type="button" class="button secondary" aria-expanded={labelsOpen} onClick={() => setLabelsOpen(!labelsOpen)}>
          Labels{conversation.labels.length > 0 ? ` (${conversation.labels.length})` : ''}
        </button>
        {labelsOpen && (
          <fieldset class="popover">
            <legend>Labels</legend>
            {labels.length === 0 && <p>No labels yet: an admin creates them.</p>}
            {labels.map((label) => {
              const on = conversation.labels.some((name) => name.toLowerCase() === label.name.toLowerCase());
              return (
                <label class="check">
                  <input
                    type="checkbox"
                    checked={on}
                    onChange={() =>
                      void update({
                        labels: on
                          ? conversation.labels.filter((name) => name.toLowerCase() !== label.name.toLowerCase())
                          : [...conversation.labels, label.name],
                      })
                    }
                  />
                  <span class="label-swatch" style={{ background: label.color }} aria-hidden="true" />
                  {label.name}
                </label>
              );
            })}
          </fieldset>
        )}
      </div>
      {conversation.status !== 'closed' && (
        <label class="inline-field">
          <span class="field-label">Snooze</span>
          <select
            value=""
            onChange={(event) => {
              const choice = SNOOZES.find((s) => s.label === valueOf(event));
              if (choice) void update({ status: 'snoozed', snoozed_until: choice.until().toISOString() });
            }}
          >
            <option value="">For…</option>
            {SNOOZES.map((s) => (
              <option value={s.label}>{s.label}</option>
            ))}
          </select>
        </label>
      )}
      {macros.length > 0 && (
        <label class="inline-field">
          <span class="field-label">Macros</span>
          <select
            value=""
            onChange={(event) => {
              const id = valueOf(event);
              event.currentTarget.value = '';
              if (id) void runMacro(id);
            }}
          >
            <option value="">Run…</option>
            {macros.map((macro) => (
              <option value={macro.id}>{macro.name}</option>
            ))}
          </select>
        </label>
      )}
      {conversation.status === 'closed' || conversation.status === 'snoozed' ? (
        <button type="button" class="button secondary" onClick={() => void update({ status: 'open' })}>
          Reopen
        </button>
      ) : (
        <button type="button" class="button" onClick={() => void update({ status: 'closed' })}>
          Close
        </button>
      )}
    </div>
  );
}

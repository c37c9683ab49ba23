import { useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { AVAILABILITY_LABELS, loadText, useLoads } from '../components/availability';
import { Dialog, ErrorNote, Field, PageHeader, useAction, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type Team = Schemas['TeamResponse'];

/** Who is there and how loaded (everyone), and the teams (admins manage them). */
export function TeamsPage() {
  const { me, teams, users, inboxes, reloadTeams } = useWorkspace();
  const admin = me.role === 'admin';
  const loads = useLoads();
  const teamNames = new Map(teams.map((team) => [team.id, team.name]));
  const userNames = new Map(users.map((user) => [user.id, user.name]));
  const inboxNames = new Map(inboxes.map((inbox) => [inbox.id, inbox.name]));
  const [name, setName] = useState('');
  const [editing, setEditing] = useState<Team | null>(null);
  const create = useAction(async () => {
    const team = await api.post('/api/v1/teams', { body: { name: name.trim() } });
    setName('');
    reloadTeams();
    setEditing(team);
  });
  const remove = useAction(async (team: Team) => {
    if (!confirm(`Delete the team ${team.name}? Its conversations keep their agents.`)) return;
    await api.delete('/api/v1/teams/{id}', { params: { id: team.id } });
    reloadTeams();
  });
  return (
    <section class="page">
      <PageHeader title="Teams" />
      <h2>Agents</h2>
      <p class="muted">Who takes conversations now, and how many each has open (of the most the inboxes give them).</p>
      <table class="table" aria-label="Agents’ availability and load">
        <thead>
          <tr>
            <th scope="col">Agent</th>
            <th scope="col">Availability</th>
            <th scope="col">Open conversations</th>
            <th scope="col">Teams</th>
          </tr>
        </thead>
        <tbody>
          {loads.map((load) => (
            <tr>
              <th scope="row">{load.user_id === me.id ? `${load.name} (me)` : load.name}</th>
              <td>
                <span class={`availability-dot availability-${load.availability}`} aria-hidden="true" />{' '}
                {AVAILABILITY_LABELS[load.availability]}
              </td>
              <td>{loadText(load)}</td>
              <td>{load.team_ids.map((id) => teamNames.get(id) ?? id).join(', ') || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Teams</h2>
      {admin && (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void create.run();
          }}
        >
          <Field label="New team">
            <input type="text" required maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />
          </Field>
          <button type="submit" class="button" disabled={create.pending}>
            Add team
          </button>
        </form>
      )}
      <ErrorNote error={create.error ?? remove.error} />
      {teams.length === 0 && <p class="empty">No team yet{admin ? '' : ': an admin creates them'}.</p>}
      <table class="table" aria-label="Teams">
        <thead>
          <tr>
            <th scope="col">Team</th>
            <th scope="col">Members</th>
            <th scope="col">Inboxes</th>
            {admin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {teams.map((team) => (
            <tr>
              <th scope="row">
                {team.name}
                {team.description && <div class="muted">{team.description}</div>}
              </th>
              <td>{team.member_ids.map((id) => userNames.get(id) ?? id).join(', ') || '—'}</td>
              <td>{team.inbox_ids.map((id) => inboxNames.get(id) ?? id).join(', ') || '—'}</td>
              {admin && (
                <td>
                  <button type="button" class="link-button" onClick={() => setEditing(team)} aria-label={`Edit the team ${team.name}`}>
                    Edit
                  </button>{' '}
                  <button
                    type="button"
                    class="link-button danger-text"
                    onClick={() => void remove.run(team)}
                    aria-label={`Delete the team ${team.name}`}
                  >
                    Delete
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {editing && (
        <TeamDialog
          team={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            reloadTeams();
          }}
        />
      )}
    </section>
  );
}

function TeamDialog(props: { team: Team; onClose: () => void; onSaved: () => void }) {
  const { users, inboxes } = useWorkspace();
  const [name, setName] = useState(props.team.name);
  const [description, setDescription] = useState(props.team.description);
  const [members, setMembers] = useState(new Set(props.team.member_ids));
  const [teamInboxes, setTeamInboxes] = useState(new Set(props.team.inbox_ids));
  const toggle = (set: Set<string>, id: string) => {
    const next = new Set(set);
    if (!next.delete(id)) next.add(id);
    return next;
  };
  const save = useAction(async () => {
    await api.patch('/api/v1/teams/{id}', {
      params: { id: props.team.id },
      body: { name: name.trim(), description, member_ids: [...members], inbox_ids: [...teamInboxes] },
    });
    props.onSaved();
  });
  return (
    <Dialog title={`Team ${props.team.name}`} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <Field label="Name">
          <input type="text" required maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="Description">
          <input type="text" maxLength={500} value={description} onInput={(e) => setDescription(valueOf(e))} />
        </Field>
        <fieldset class="check-list">
          <legend>Members</legend>
          {users
            .filter((user) => user.status === 'active')
            .map((user) => (
              <label class="check">
                <input type="checkbox" checked={members.has(user.id)} onChange={() => setMembers(toggle(members, user.id))} />
                {user.name}
              </label>
            ))}
        </fieldset>
        <fieldset class="check-list">
          <legend>Inboxes it works</legend>
          {inboxes.map((inbox) => (
            <label class="check">
              <input type="checkbox" checked={teamInboxes.has(inbox.id)} onChange={() => setTeamInboxes(toggle(teamInboxes, inbox.id))} />
              {inbox.name}
            </label>
          ))}
        </fieldset>
        <ErrorNote error={save.error} />
        <div class="dialog-actions">
          <button type="submit" class="button" disabled={save.pending}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}

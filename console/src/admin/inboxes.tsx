import { useEffect, useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { Dialog, ErrorNote, Field, LoadMore, PageHeader, useAction, usePages, valueOf } from '../ui';
import { explainChannelError, fullTime } from '../format';
import { useWorkspace } from '../workspace';

type Inbox = Schemas['InboxResponse'];
type Connection = Schemas['InboxConnectionResponse'];

/** Where Meta's dashboard must send the channel's webhooks: one URL for every number of the install. */
const WEBHOOK_PATH = '/api/webhooks/messaging';

/**
 * The business's WhatsApp numbers (admins): each inbox's number, whether a token and an app
 * secret are stored (never shown), the webhook URL to paste into Meta's dashboard; adding a
 * number, editing, testing its connection, disabling and deleting one.
 */
export function AdminInboxes() {
  const { reloadInboxes, teams } = useWorkspace();
  const loaded = usePages((cursor) => api.get('/api/v1/inboxes', { query: { cursor, limit: 100 } }), []);
  // Every change reaches the inbox switcher too.
  const pages = {
    ...loaded,
    reload: () => {
      loaded.reload();
      reloadInboxes();
    },
  };
  const [editing, setEditing] = useState<Inbox | 'new' | null>(null);
  const [members, setMembers] = useState<Inbox | null>(null);
  const [assigning, setAssigning] = useState<Inbox | null>(null);
  const [tested, setTested] = useState<{ inbox: Inbox; connection: Connection } | null>(null);
  const test = useAction(async (inbox: Inbox) => {
    const connection = await api.post('/api/v1/inboxes/{id}/test', { params: { id: inbox.id } });
    setTested({ inbox, connection });
    pages.reload();
  });
  const toggle = useAction(async (inbox: Inbox) => {
    await api.patch('/api/v1/inboxes/{id}', {
      params: { id: inbox.id },
      body: { status: inbox.status === 'active' ? 'disabled' : 'active' },
    });
    pages.reload();
  });
  const remove = useAction(async (inbox: Inbox) => {
    if (!confirm(`Delete the inbox ${inbox.name}?`)) return;
    await api.delete('/api/v1/inboxes/{id}', { params: { id: inbox.id } });
    pages.reload();
  });
  return (
    <section class="page">
      <PageHeader title="Inboxes">
        <button type="button" class="button" onClick={() => setEditing('new')}>
          Add a number
        </button>
      </PageHeader>
      <ChannelWebhook />
      <ErrorNote error={pages.error ?? test.error ?? toggle.error ?? remove.error} />
      {tested && (
        <p role="status" class={tested.connection.ok ? 'muted' : 'error'}>
          {tested.connection.ok
            ? `${tested.inbox.name}: the channel answers for ${tested.connection.display_phone_number ?? 'the number'} with this token.`
            : `${tested.inbox.name}: ${tested.connection.error ?? 'the channel did not answer'}`}
        </p>
      )}
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Number</th>
            <th scope="col">Business account</th>
            <th scope="col">Access token</th>
            <th scope="col">App secret</th>
            <th scope="col">Status</th>
            <th scope="col">Assignment</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((inbox) => (
            <tr>
              <td>
                {inbox.name}
                {inbox.is_default && <span class="label-chip">Default</span>}
              </td>
              <td>{inbox.display_phone_number ?? inbox.phone_number_id ?? 'Sandbox'}</td>
              <td>{inbox.business_account_id ?? '—'}</td>
              <td>{inbox.has_access_token ? 'Stored' : 'None: the sandbox answers sends'}</td>
              <td>{inbox.has_app_secret ? 'Stored' : 'MESSAGING_APP_SECRET'}</td>
              <td>
                {inbox.status === 'active' ? 'Active' : 'Disabled'}
                {inbox.channel_error && (
                  <p class="failure" role="alert">
                    Not sending since {fullTime(inbox.channel_error_at!)}: {inbox.channel_error}. {brokenAdvice(inbox.channel_error)}
                  </p>
                )}
              </td>
              <td>{assignmentText(inbox.assignment, teams)}</td>
              <td class="row-actions">
                <button type="button" class="link-button" onClick={() => void test.run(inbox)}>
                  Test connection
                </button>
                <button type="button" class="link-button" onClick={() => setEditing(inbox)}>
                  Edit
                </button>
                <button type="button" class="link-button" onClick={() => setMembers(inbox)}>
                  Members
                </button>
                <button type="button" class="link-button" onClick={() => setAssigning(inbox)} aria-label={`Assignment of ${inbox.name}`}>
                  Assignment
                </button>
                {!inbox.is_default && (
                  <>
                    <button type="button" class="link-button" onClick={() => void toggle.run(inbox)}>
                      {inbox.status === 'active' ? 'Disable' : 'Enable'}
                    </button>
                    <button type="button" class="link-button danger-text" onClick={() => void remove.run(inbox)}>
                      Delete
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
      {members && <InboxMembers inbox={members} onClose={() => setMembers(null)} />}
      {assigning && (
        <AssignmentForm
          inbox={assigning}
          onClose={() => setAssigning(null)}
          onSaved={() => {
            setAssigning(null);
            pages.reload();
          }}
        />
      )}
      {editing && (
        <InboxForm
          inbox={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            pages.reload();
          }}
        />
      )}
    </section>
  );
}

/**
 * What to paste into Meta's dashboard, once for every number: the callback URL (this console's
 * address), the verify token (shown on request: whoever sees it can answer Meta's handshake) and
 * the fields to subscribe to.
 */
function ChannelWebhook() {
  const [webhook, setWebhook] = useState<Schemas['ChannelWebhookResponse'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [shown, setShown] = useState(false);
  useEffect(() => {
    api.get('/api/v1/inboxes/channel-webhook').then(setWebhook, setError);
  }, []);
  return (
    <div>
      <p>
        In Meta&apos;s dashboard (WhatsApp &gt; Configuration), every number&apos;s webhooks go to one callback URL:{' '}
        <code>{`${location.origin}${WEBHOOK_PATH}`}</code>
      </p>
      {webhook && (
        <p>
          Verify token:{' '}
          {webhook.verify_token === null ? (
            <span class="error">not set: set MESSAGING_WEBHOOK_VERIFY_TOKEN, or Meta&apos;s handshake is refused</span>
          ) : shown ? (
            <code>{webhook.verify_token}</code>
          ) : (
            <button type="button" class="link-button" onClick={() => setShown(true)}>
              Show the verify token
            </button>
          )}
          . Subscribe to the fields {webhook.fields.map((field, index) => [index > 0 && ', ', <code>{field}</code>])}. The default inbox is
          the number the <code>MESSAGING_*</code> settings describe, read again at each start.
        </p>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

/** Adding a number, or editing one: the default inbox's channel fields are its settings, so only its name is here. */
function InboxForm(props: { inbox: Inbox | null; onClose: () => void; onSaved: () => void }) {
  const settingsOwned = props.inbox?.is_default === true;
  const [name, setName] = useState(props.inbox?.name ?? '');
  const [phoneNumberId, setPhoneNumberId] = useState(props.inbox?.phone_number_id ?? '');
  const [businessAccountId, setBusinessAccountId] = useState(props.inbox?.business_account_id ?? '');
  const [accessToken, setAccessToken] = useState('');
  const [appSecret, setAppSecret] = useState('');
  const save = useAction(async () => {
    if (props.inbox && settingsOwned) {
      await api.patch('/api/v1/inboxes/{id}', { params: { id: props.inbox.id }, body: { name } });
    } else if (props.inbox) {
      await api.patch('/api/v1/inboxes/{id}', {
        params: { id: props.inbox.id },
        body: {
          name,
          phone_number_id: phoneNumberId,
          business_account_id: businessAccountId || null,
          ...(accessToken ? { access_token: accessToken } : {}),
          ...(appSecret ? { app_secret: appSecret } : {}),
        },
      });
    } else {
      await api.post('/api/v1/inboxes', {
        body: {
          name,
          phone_number_id: phoneNumberId,
          access_token: accessToken,
          ...(businessAccountId ? { business_account_id: businessAccountId } : {}),
          ...(appSecret ? { app_secret: appSecret } : {}),
        },
      });
    }
    props.onSaved();
  });
  return (
    <Dialog title={props.inbox ? `Edit ${props.inbox.name}` : 'Add a number'} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <Field label="Name" hint="What agents see, e.g. Sales or Support Spain">
          <input type="text" required maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        {settingsOwned ? (
          <p class="muted">
            The default inbox&apos;s number, token and app secret are the MESSAGING_* settings: change them there and restart.
          </p>
        ) : (
          <>
            <Field label="Phone number id" hint="Meta's dashboard: WhatsApp > API Setup">
              <input
                type="text"
                inputMode="numeric"
                required
                pattern="[0-9]{1,32}"
                value={phoneNumberId}
                onInput={(e) => setPhoneNumberId(valueOf(e))}
              />
            </Field>
            <Field label="Business account id" hint="The WhatsApp Business Account of its templates (optional)">
              <input
                type="text"
                inputMode="numeric"
                pattern="[0-9]{1,32}"
                value={businessAccountId}
                onInput={(e) => setBusinessAccountId(valueOf(e))}
              />
            </Field>
            <Field
              label={props.inbox ? 'New access token (leave empty to keep it)' : 'Access token'}
              hint="A system user's permanent token; stored sealed, never shown again"
            >
              <input
                type="password"
                autoComplete="off"
                required={!props.inbox}
                maxLength={1024}
                value={accessToken}
                onInput={(e) => setAccessToken(valueOf(e))}
              />
            </Field>
            <Field
              label={props.inbox ? 'New app secret (leave empty to keep it)' : 'App secret'}
              hint="Only when the number belongs to another Meta app: without one, MESSAGING_APP_SECRET checks its webhooks"
            >
              <input type="password" autoComplete="off" maxLength={256} value={appSecret} onInput={(e) => setAppSecret(valueOf(e))} />
            </Field>
          </>
        )}
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

/** Who works the inbox: agents see only the conversations of their inboxes; admins see every inbox whatever this says. */
function InboxMembers(props: { inbox: Inbox; onClose: () => void }) {
  const { users } = useWorkspace();
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api
      .get('/api/v1/inboxes/{id}/members', { params: { id: props.inbox.id } })
      .then((answer) => setChosen(new Set(answer.user_ids)), setError);
  }, [props.inbox.id]);
  const save = useAction(async () => {
    await api.put('/api/v1/inboxes/{id}/members', { params: { id: props.inbox.id }, body: { user_ids: [...(chosen ?? [])] } });
    props.onClose();
  });
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setChosen(next);
  };
  return (
    <Dialog title={`Members of ${props.inbox.name}`} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <p class="muted">Agents see only the conversations of the inboxes they are members of; admins see every inbox.</p>
        <fieldset class="event-types">
          <legend>Users</legend>
          {chosen &&
            users.map((user) => (
              <label class="check">
                <input type="checkbox" checked={chosen.has(user.id)} onChange={() => toggle(user.id)} />
                {user.name} <span class="muted">({user.role === 'admin' ? 'admin' : user.email})</span>
              </label>
            ))}
        </fieldset>
        <ErrorNote error={error ?? save.error} />
        <div class="dialog-actions">
          <button type="submit" class="button" disabled={save.pending || chosen === null}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** What an admin does about a broken token or account; the test connection button clears the note once the channel answers. */
function brokenAdvice(error: string): string {
  return `${explainChannelError(error) ?? ''} Then press Test connection.`.trim();
}

type Assignment = Inbox['assignment'];
const MODES: Record<Assignment['mode'], string> = {
  manual: 'Manual',
  round_robin: 'Round robin',
  balanced: 'Balanced',
};

function assignmentText(assignment: Assignment, teams: { id: string; name: string }[]): string {
  if (assignment.mode === 'manual') return MODES.manual;
  const team = assignment.team_id ? ` to ${teams.find((t) => t.id === assignment.team_id)?.name ?? 'a team'}` : '';
  return `${MODES[assignment.mode]}${team}${assignment.capacity === null ? '' : `, at most ${assignment.capacity} each`}`;
}

/** Who takes the inbox's conversations: by hand, or the router (round robin or balanced), with a capacity and a team. */
function AssignmentForm(props: { inbox: Inbox; onClose: () => void; onSaved: () => void }) {
  const { teams } = useWorkspace();
  const [mode, setMode] = useState(props.inbox.assignment.mode);
  const [capacity, setCapacity] = useState(props.inbox.assignment.capacity?.toString() ?? '');
  const [teamId, setTeamId] = useState(props.inbox.assignment.team_id ?? '');
  const inboxTeams = teams.filter((team) => team.inbox_ids.includes(props.inbox.id));
  const save = useAction(async () => {
    await api.patch('/api/v1/inboxes/{id}', {
      params: { id: props.inbox.id },
      body: { assignment: { mode, capacity: capacity ? Number(capacity) : null, team_id: teamId || null } },
    });
    props.onSaved();
  });
  return (
    <Dialog title={`Assignment of ${props.inbox.name}`} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <Field
          label="Who takes new conversations"
          hint="Round robin: the online member given one least recently. Balanced: the online member with the fewest open."
        >
          <select value={mode} onChange={(e) => setMode(valueOf(e) as Assignment['mode'])}>
            {(Object.keys(MODES) as Assignment['mode'][]).map((value) => (
              <option value={value}>{MODES[value]}</option>
            ))}
          </select>
        </Field>
        {mode !== 'manual' && (
          <>
            <Field
              label="Capacity"
              hint="The most open conversations (in every inbox) an agent has before they get no more; empty: no limit"
            >
              <input type="number" min={1} max={10000} step={1} value={capacity} onInput={(e) => setCapacity(valueOf(e))} />
            </Field>
            <Field label="Only to a team" hint="A team that works this inbox (Teams page)">
              <select value={teamId} onChange={(e) => setTeamId(valueOf(e))}>
                <option value="">Every member</option>
                {inboxTeams.map((team) => (
                  <option value={team.id}>{team.name}</option>
                ))}
              </select>
            </Field>
          </>
        )}
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

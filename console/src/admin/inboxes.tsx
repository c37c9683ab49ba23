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
  const [automating, setAutomating] = useState<Inbox | null>(null);
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
            <th scope="col">Hours</th>
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
              <td>{inbox.business_hours ? (inbox.open_now ? 'Open now' : 'Closed now') : 'Always open'}</td>
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
                <button
                  type="button"
                  class="link-button"
                  onClick={() => setAutomating(inbox)}
                  aria-label={`Hours and automatic messages of ${inbox.name}`}
                >
                  Hours and automatic messages
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
      {automating && (
        <AutomationForm
          inbox={automating}
          onClose={() => setAutomating(null)}
          onSaved={() => {
            setAutomating(null);
            pages.reload();
          }}
        />
      )}
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

const WEEKDAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
] as const;
type Hours = { timezone: string; days: Record<string, [string, string][]>; holidays: string[] };
const INTERVAL = /^(\d\d:\d\d)\s*-\s*(\d\d:\d\d)$/;

/** "09:00-12:30, 13:30-17:30" for a day's intervals, and back (null when a piece is not an interval). */
const intervalsText = (intervals: [string, string][] = []) => intervals.map(([start, end]) => `${start}-${end}`).join(', ');
function intervalsOf(text: string): [string, string][] | null {
  const pieces = text
    .split(',')
    .map((piece) => piece.trim())
    .filter(Boolean);
  const intervals = pieces.map((piece) => INTERVAL.exec(piece));
  return intervals.every(Boolean) ? intervals.map((match) => [match![1], match![2]]) : null;
}

/** When the inbox is open, what it says by itself (greeting, away message, the survey), and when it closes quiet conversations. */
function AutomationForm(props: { inbox: Inbox; onClose: () => void; onSaved: () => void }) {
  const hours = props.inbox.business_hours as Hours | null;
  const [alwaysOpen, setAlwaysOpen] = useState(hours === null);
  const [timezone, setTimezone] = useState(hours?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [days, setDays] = useState<Record<string, string>>(
    Object.fromEntries(
      WEEKDAYS.map(([day]) => [day, hours ? intervalsText(hours.days[day]) : ['sat', 'sun'].includes(day) ? '' : '09:00-17:00']),
    ),
  );
  const [holidays, setHolidays] = useState(hours?.holidays.join(', ') ?? '');
  const [greeting, setGreeting] = useState(props.inbox.greeting ?? { enabled: false, text: '' });
  const [away, setAway] = useState(props.inbox.away ?? { enabled: false, text: '' });
  const [resolveAfter, setResolveAfter] = useState(props.inbox.auto_resolve_after ?? '');
  const [csat, setCsat] = useState(props.inbox.csat ?? { enabled: false, question: 'How did we do? Pick a rating.' });
  const [problem, setProblem] = useState('');
  const save = useAction(async () => {
    setProblem('');
    let businessHours: Hours | null = null;
    if (!alwaysOpen) {
      const parsed = WEEKDAYS.map(([day, name]) => [day, name, intervalsOf(days[day])] as const);
      const wrong = parsed.find(([, , intervals]) => intervals === null);
      if (wrong) return setProblem(`${wrong[1]}: write the hours as 09:00-12:30, 13:30-17:30 (empty: closed)`);
      businessHours = {
        timezone,
        days: Object.fromEntries(parsed.filter(([, , intervals]) => intervals!.length > 0).map(([day, , intervals]) => [day, intervals!])),
        holidays: holidays
          .split(',')
          .map((date) => date.trim())
          .filter(Boolean),
      };
    }
    const message = (value: { enabled: boolean; text: string }) =>
      value.text.trim() ? { enabled: value.enabled, text: value.text.trim() } : null;
    await api.patch('/api/v1/inboxes/{id}', {
      params: { id: props.inbox.id },
      body: {
        business_hours: businessHours,
        greeting: message(greeting),
        away: message(away),
        auto_resolve_after: resolveAfter.trim() || null,
        csat: csat.question.trim() ? { enabled: csat.enabled, question: csat.question.trim() } : null,
      },
    });
    props.onSaved();
  });
  return (
    <Dialog title={`Hours and automatic messages of ${props.inbox.name}`} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <label class="check">
          <input type="checkbox" checked={alwaysOpen} onChange={(e) => setAlwaysOpen(e.currentTarget.checked)} />
          Always open
        </label>
        {!alwaysOpen && (
          <fieldset>
            <legend>Business hours</legend>
            <Field label="Time zone" hint="As in Europe/Berlin or America/Sao_Paulo">
              <input type="text" required value={timezone} onInput={(e) => setTimezone(valueOf(e))} />
            </Field>
            {WEEKDAYS.map(([day, name]) => (
              <Field label={name} hint={day === 'mon' ? 'Such as 09:00-12:30, 13:30-17:30; empty: closed' : undefined}>
                <input type="text" value={days[day]} onInput={(e) => setDays({ ...days, [day]: valueOf(e) })} />
              </Field>
            ))}
            <Field label="Holidays" hint="Dates closed all day, such as 2026-12-25, 2027-01-01">
              <input type="text" value={holidays} onInput={(e) => setHolidays(valueOf(e))} />
            </Field>
          </fieldset>
        )}
        <fieldset>
          <legend>Greeting</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={greeting.enabled}
              onChange={(e) => setGreeting({ ...greeting, enabled: e.currentTarget.checked })}
            />
            Greet a customer who starts a conversation (inside business hours)
          </label>
          <Field label="Greeting text">
            <textarea maxLength={1024} value={greeting.text} onInput={(e) => setGreeting({ ...greeting, text: e.currentTarget.value })} />
          </Field>
        </fieldset>
        <fieldset>
          <legend>Away message</legend>
          <label class="check">
            <input type="checkbox" checked={away.enabled} onChange={(e) => setAway({ ...away, enabled: e.currentTarget.checked })} />
            Answer outside business hours (at most once in 12 hours per conversation)
          </label>
          <Field label="Away text">
            <textarea maxLength={1024} value={away.text} onInput={(e) => setAway({ ...away, text: e.currentTarget.value })} />
          </Field>
        </fieldset>
        <fieldset>
          <legend>Satisfaction survey</legend>
          <label class="check">
            <input type="checkbox" checked={csat.enabled} onChange={(e) => setCsat({ ...csat, enabled: e.currentTarget.checked })} />
            Ask the customer to rate us (1 to 5) when an agent closes the conversation within the 24 hours
          </label>
          <Field label="Survey question" hint="A comment written within 10 minutes after the rating is kept with it">
            <textarea maxLength={1024} value={csat.question} onInput={(e) => setCsat({ ...csat, question: e.currentTarget.value })} />
          </Field>
        </fieldset>
        <Field label="Close quiet conversations after" hint="Such as 24h or 7d; empty: never. A note in the thread says so">
          <input type="text" value={resolveAfter} onInput={(e) => setResolveAfter(valueOf(e))} />
        </Field>
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
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

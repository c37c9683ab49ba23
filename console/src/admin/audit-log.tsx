import { useState } from 'preact/hooks';
// The service's own list, shared at build time (as the stream's event types are): the filter cannot drift from it.
import { AUDIT_ACTIONS, type AuditAction as Action } from '../../../src/audit/audit-entry.entity';
import { api } from '../api/client';
import { fullTime } from '../format';
import { ErrorNote, Field, LoadMore, PageHeader, usePages, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

/** A day picked in the filter, as the start of that day where the user is. */
function startOfDay(day: string): string {
  return new Date(`${day}T00:00:00`).toISOString();
}

/** The audit log, newest first, filtered by who, what and when (admins). */
export function AdminAuditLog() {
  const { users } = useWorkspace();
  const [actor, setActor] = useState('');
  const [action, setAction] = useState<Action | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const pages = usePages(
    (cursor) =>
      api.get('/api/v1/audit-log', {
        query: {
          cursor,
          limit: 50,
          actor: actor || undefined,
          action: action || undefined,
          from: from ? startOfDay(from) : undefined,
          // The day picked is included: up to the start of the next one.
          to: to ? new Date(new Date(`${to}T00:00:00`).getTime() + 86_400_000).toISOString() : undefined,
        },
      }),
    [actor, action, from, to],
  );
  return (
    <section class="page">
      <PageHeader title="Audit log" />
      <form class="inline-form filters" aria-label="Filter the audit log" onSubmit={(event) => event.preventDefault()}>
        <Field label="Who">
          <select value={actor} onChange={(e) => setActor(valueOf(e))}>
            <option value="">Anyone</option>
            {users.map((user) => (
              <option value={user.id}>{user.name}</option>
            ))}
          </select>
        </Field>
        <Field label="Action">
          <select value={action} onChange={(e) => setAction(valueOf(e) as Action | '')}>
            <option value="">Any action</option>
            {AUDIT_ACTIONS.map((name) => (
              <option value={name}>{name}</option>
            ))}
          </select>
        </Field>
        <Field label="From">
          <input type="date" value={from} onInput={(e) => setFrom(valueOf(e))} />
        </Field>
        <Field label="To">
          <input type="date" value={to} onInput={(e) => setTo(valueOf(e))} />
        </Field>
      </form>
      <ErrorNote error={pages.error} />
      <table class="table audit-log">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Address</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((entry) => (
            <tr>
              <td>{fullTime(entry.at)}</td>
              <td>{entry.actor?.email ?? '—'}</td>
              <td>{entry.ip ?? '—'}</td>
              <td>
                <code>{entry.action}</code>
              </td>
              <td>{entry.target ? (users.find((user) => user.id === entry.target)?.name ?? entry.target) : '—'}</td>
              <td>
                <code class="details">{Object.keys(entry.details).length ? JSON.stringify(entry.details) : ''}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {pages.items.length === 0 && !pages.loading && <p class="muted">Nothing recorded matches.</p>}
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
    </section>
  );
}

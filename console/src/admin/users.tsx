import { useState } from 'preact/hooks';
import { api, type Schemas, type User } from '../api/client';
import { AVAILABILITY_LABELS } from '../components/availability';
import { shortTime } from '../format';
import { ErrorNote, Field, LoadMore, PageHeader, useAction, usePages, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

export function AdminUsers() {
  const { me, reloadUsers, inboxes } = useWorkspace();
  const pages = usePages((cursor) => api.get('/api/v1/users', { query: { cursor, limit: 100 } }), []);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<User['role']>('agent');
  // '' : the default inbox, as the API chooses without inbox_ids.
  const [inboxId, setInboxId] = useState('');
  const [invited, setInvited] = useState<Schemas['InvitedUserResponse'] | null>(null);
  const invite = useAction(async () => {
    setInvited(
      await api.post('/api/v1/users', {
        body: { email: email.trim(), name: name.trim(), role, beta_access: true, ...(inboxId ? { inbox_ids: [inboxId] } : {}) },
      }),
    );
    setEmail('');
    setName('');
    pages.reload();
    reloadUsers();
  });
  const change = useAction(async (user: User, nextRole: User['role']) => {
    await api.patch('/api/v1/users/{id}', { params: { id: user.id }, body: { role: nextRole } });
    pages.reload();
  });
  const remove = useAction(async (user: User) => {
    if (!confirm(`Remove ${user.name}? Their conversations become unassigned.`)) return;
    await api.delete('/api/v1/users/{id}', { params: { id: user.id } });
    pages.reload();
    reloadUsers();
  });
  const unlock = useAction(async (user: User) => {
    await api.post('/api/v1/users/{id}/unlock', { params: { id: user.id } });
    pages.reload();
  });
  const resetSecondFactor = useAction(async (user: User) => {
    if (!confirm(`Turn off two-factor login for ${user.name}? They sign in with their password alone until they set it up again.`)) return;
    await api.delete('/api/v1/users/{id}/2fa', { params: { id: user.id } });
    pages.reload();
  });
  const resend = useAction(async (user: User) => {
    setInvited(await api.post('/api/v1/users/{id}/invite', { params: { id: user.id } }));
  });
  return (
    <section class="page">
      <PageHeader title="Users" />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void invite.run();
        }}
      >
        <h2>Invite someone</h2>
        <Field label="E-mail">
          <input type="email" required value={email} onInput={(e) => setEmail(valueOf(e))} />
        </Field>
        <Field label="Name">
          <input type="text" required value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="Role">
          <select value={role} onChange={(e) => setRole(valueOf(e) as User['role'])}>
            <option value="agent">Agent</option>
            <option value="admin">Admin</option>
          </select>
        </Field>
        {inboxes.length > 1 && (
          <Field label="Inbox" hint="More on the Inboxes page (Members); admins see every inbox">
            <select value={inboxId} onChange={(e) => setInboxId(valueOf(e))}>
              {inboxes.map((inbox) => (
                <option value={inbox.is_default ? '' : inbox.id}>{inbox.name}</option>
              ))}
            </select>
          </Field>
        )}
        <button type="submit" class="button" disabled={invite.pending}>
          Invite
        </button>
      </form>
      {invited && (
        <p role="status" class="report">
          {invited.email} is invited.{' '}
          {invited.invite_url ? (
            <>
              No e-mail provider is set, so give them this link: <code class="invite-url">{invited.invite_url}</code>
            </>
          ) : (
            'The invitation e-mail is on its way.'
          )}
        </p>
      )}
      <ErrorNote
        error={invite.error ?? change.error ?? remove.error ?? resend.error ?? unlock.error ?? resetSecondFactor.error ?? pages.error}
      />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Availability</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((user) => (
            <tr>
              <td>{user.name}</td>
              <td>{user.email}</td>
              <td>
                <select
                  aria-label={`Role of ${user.name}`}
                  value={user.role}
                  disabled={user.id === me.id}
                  onChange={(e) => void change.run(user, valueOf(e) as User['role'])}
                >
                  <option value="agent">Agent</option>
                  <option value="admin">Admin</option>
                </select>
              </td>
              <td>
                {user.status}
                {user.two_factor_enabled && <span class="tag">2FA</span>}
                {user.locked_until && <span class="tag danger-text">locked until {shortTime(user.locked_until)}</span>}
              </td>
              <td>
                <span class={`availability-dot availability-${user.availability}`} aria-hidden="true" />{' '}
                {AVAILABILITY_LABELS[user.availability]}
              </td>
              <td class="row-actions">
                {user.locked_until && (
                  <button type="button" class="link-button" aria-label={`Unlock ${user.name}`} onClick={() => void unlock.run(user)}>
                    Unlock
                  </button>
                )}
                {user.two_factor_enabled && user.id !== me.id && (
                  <button
                    type="button"
                    class="link-button"
                    aria-label={`Reset 2FA of ${user.name}`}
                    onClick={() => void resetSecondFactor.run(user)}
                  >
                    Reset 2FA
                  </button>
                )}
                {user.status === 'invited' && (
                  <button type="button" class="link-button" onClick={() => void resend.run(user)}>
                    Invite again
                  </button>
                )}
                {user.id !== me.id && (
                  <button
                    type="button"
                    class="link-button danger-text"
                    onClick={() => void remove.run(user)}
                    aria-label={`Remove ${user.name}`}
                  >
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
    </section>
  );
}

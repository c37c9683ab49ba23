import { useState } from 'preact/hooks';
import { api, type Me, type Schemas } from '../api/client';
import { fullTime } from '../format';
import { ErrorNote, Field, LoadMore, useAction, usePages, valueOf } from '../ui';

type ApiToken = Schemas['ApiTokenResponse'];

/** API tokens for integrations: made here, their secret shown once; an admin sees and revokes everyone's. */
export function ApiTokensSection(props: { me: Me; userName: (id: string) => string }) {
  const pages = usePages((cursor) => api.get('/api/v1/api-tokens', { query: { cursor, limit: 50 } }), []);
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<Schemas['CreatedApiTokenResponse'] | null>(null);
  const create = useAction(async () => {
    // A date picked is the end of that day, where the user is.
    const expiresAt = expires ? new Date(`${expires}T23:59:59`).toISOString() : undefined;
    setCreated(await api.post('/api/v1/api-tokens', { body: { name: name.trim(), ...(expiresAt ? { expires_at: expiresAt } : {}) } }));
    setName('');
    setExpires('');
    pages.reload();
  });
  const revoke = useAction(async (token: ApiToken) => {
    if (!confirm(`Revoke "${token.name}"? What uses it stops working at once.`)) return;
    await api.delete('/api/v1/api-tokens/{id}', { params: { id: token.id } });
    pages.reload();
  });
  const admin = props.me.role === 'admin';
  return (
    <section aria-labelledby="api-tokens-title">
      <h2 id="api-tokens-title">API tokens</h2>
      <p class="muted">
        For integrations: a token calls the API as you, with your role, until it expires or is revoked.
        {admin ? ' As an admin you see everyone’s.' : ''}
      </p>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setCreated(null);
          void create.run();
        }}
      >
        <Field label="Token name">
          <input type="text" required maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="Expires on" hint="Optional">
          <input type="date" value={expires} onInput={(e) => setExpires(valueOf(e))} />
        </Field>
        <button type="submit" class="button" disabled={create.pending}>
          Create token
        </button>
      </form>
      {created && (
        <div class="report" role="status">
          <p>Copy the token "{created.name}" now: it is not shown again.</p>
          <code class="secret new-api-token">{created.token}</code>
        </div>
      )}
      <ErrorNote error={create.error ?? revoke.error ?? pages.error} />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            {admin && <th scope="col">Owner</th>}
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((token) => (
            <tr>
              <td>{token.name}</td>
              {admin && <td>{props.userName(token.user_id)}</td>}
              <td>{fullTime(token.created_at)}</td>
              <td>{token.expires_at ? fullTime(token.expires_at) : 'Never'}</td>
              <td>{token.last_used_at ? `${fullTime(token.last_used_at)} from ${token.last_used_ip ?? '?'}` : 'Never'}</td>
              <td class="row-actions">
                <button
                  type="button"
                  class="link-button danger-text"
                  aria-label={`Revoke ${token.name}`}
                  onClick={() => void revoke.run(token)}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {pages.items.length === 0 && !pages.loading && <p class="muted">No API tokens yet.</p>}
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
    </section>
  );
}

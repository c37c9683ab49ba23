import { useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
// The service's own list, shared at build time: the two cannot drift.
import { WEBHOOK_EVENT_TYPES } from '../../../src/events/event-types';
import { fullTime } from '../format';
import { Dialog, ErrorNote, Field, LoadMore, PageHeader, useAction, usePages, valueOf } from '../ui';

type Webhook = Schemas['WebhookResponse'];
type Delivery = Schemas['DeliveryResponse'];

export function AdminWebhooks() {
  const pages = usePages((cursor) => api.get('/api/v1/webhooks', { query: { cursor, limit: 100 } }), []);
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [log, setLog] = useState<Webhook | null>(null);
  const toggle = useAction(async (webhook: Webhook) => {
    await api.patch('/api/v1/webhooks/{id}', { params: { id: webhook.id }, body: { active: !webhook.active } });
    pages.reload();
  });
  const remove = useAction(async (webhook: Webhook) => {
    if (!confirm(`Delete the webhook to ${webhook.url}?`)) return;
    await api.delete('/api/v1/webhooks/{id}', { params: { id: webhook.id } });
    pages.reload();
  });
  return (
    <section class="page">
      <PageHeader title="Webhooks">
        <button type="button" class="button" onClick={() => setEditing('new')}>
          Register a webhook
        </button>
      </PageHeader>
      <p class="muted">
        Each event is POSTed to the URL, signed with the secret (Standard Webhooks), and retried until it is answered with a 2xx.
      </p>
      <ErrorNote error={pages.error ?? toggle.error ?? remove.error} />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((webhook) => (
            <tr>
              <td class="break">{webhook.url}</td>
              <td>{webhook.events.join(', ')}</td>
              <td>{webhook.active ? 'Active' : `Off${webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}`}</td>
              <td class="row-actions">
                <button type="button" class="link-button" onClick={() => setLog(webhook)}>
                  Deliveries
                </button>
                <button type="button" class="link-button" onClick={() => setEditing(webhook)}>
                  Edit
                </button>
                <button type="button" class="link-button" onClick={() => void toggle.run(webhook)}>
                  {webhook.active ? 'Turn off' : 'Turn on'}
                </button>
                <button type="button" class="link-button danger-text" onClick={() => void remove.run(webhook)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
      {editing && (
        <WebhookForm
          webhook={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            pages.reload();
          }}
        />
      )}
      {log && <DeliveryLog webhook={log} onClose={() => setLog(null)} />}
    </section>
  );
}

function WebhookForm(props: { webhook: Webhook | null; onClose: () => void; onSaved: () => void }) {
  const [url, setUrl] = useState(props.webhook?.url ?? '');
  const [events, setEvents] = useState<string[]>(props.webhook?.events ?? ['*']);
  const [secret, setSecret] = useState('');
  const save = useAction(async () => {
    if (props.webhook) {
      await api.patch('/api/v1/webhooks/{id}', { params: { id: props.webhook.id }, body: { url, events, ...(secret ? { secret } : {}) } });
    } else {
      await api.post('/api/v1/webhooks', { body: { url, events, secret } });
    }
    props.onSaved();
  });
  const all = events.includes('*');
  return (
    <Dialog title={props.webhook ? 'Edit webhook' : 'Register a webhook'} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <Field label="URL" hint="https, on a public address">
          <input type="url" required value={url} onInput={(e) => setUrl(valueOf(e))} />
        </Field>
        <Field
          label={props.webhook ? 'New secret (leave empty to keep it)' : 'Secret'}
          hint="16 to 256 characters; it signs every delivery"
        >
          <input
            type="text"
            required={!props.webhook}
            minLength={16}
            maxLength={256}
            value={secret}
            onInput={(e) => setSecret(valueOf(e))}
          />
        </Field>
        <fieldset class="event-types">
          <legend>Events</legend>
          <label class="check">
            <input type="checkbox" checked={all} onChange={() => setEvents(all ? [] : ['*'])} />
            Every event
          </label>
          {!all &&
            WEBHOOK_EVENT_TYPES.map((type) => (
              <label class="check">
                <input
                  type="checkbox"
                  checked={events.includes(type)}
                  onChange={() => setEvents(events.includes(type) ? events.filter((e) => e !== type) : [...events, type])}
                />
                {type}
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

function DeliveryLog(props: { webhook: Webhook; onClose: () => void }) {
  const [status, setStatus] = useState('');
  const pages = usePages(
    (cursor) =>
      api.get('/api/v1/webhooks/{id}/deliveries', {
        params: { id: props.webhook.id },
        query: { cursor, limit: 50, status: (status || undefined) as 'pending' | 'succeeded' | 'failed' | undefined },
      }),
    [status],
  );
  const retry = useAction(async (delivery: Delivery) => {
    await api.post('/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry', { params: { id: props.webhook.id, delivery_id: delivery.id } });
    pages.reload();
  });
  return (
    <Dialog title={`Deliveries to ${props.webhook.url}`} onClose={props.onClose}>
      <Field label="Status">
        <select value={status} onChange={(e) => setStatus(valueOf(e))}>
          <option value="">Any</option>
          <option value="pending">Pending</option>
          <option value="succeeded">Succeeded</option>
          <option value="failed">Failed</option>
        </select>
      </Field>
      <ErrorNote error={pages.error ?? retry.error} />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Next attempt</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((delivery) => (
            <tr>
              <td>{delivery.event_type}</td>
              <td>{delivery.status}</td>
              <td>{delivery.attempts}</td>
              <td>{delivery.last_status_code ?? '—'}</td>
              <td>{delivery.next_attempt_at ? fullTime(delivery.next_attempt_at) : '—'}</td>
              <td>
                {delivery.status !== 'pending' && (
                  <button type="button" class="link-button" onClick={() => void retry.run(delivery)}>
                    Retry
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
    </Dialog>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { ErrorNote, PageHeader } from '../ui';

type Inbox = Schemas['InboxResponse'];

/** Where Meta's dashboard must send the channel's webhooks: one URL for every number of the install. */
const WEBHOOK_PATH = '/api/webhooks/messaging';

/**
 * The business's WhatsApp numbers (admins): each inbox's number, whether a token and an app
 * secret are stored (never shown), and the webhook URL to paste into Meta's dashboard.
 */
export function AdminInboxes() {
  const [inboxes, setInboxes] = useState<Inbox[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.get('/api/v1/inboxes', { query: { limit: 100 } }).then((page) => setInboxes(page.data), setError);
  }, []);
  return (
    <section class="page">
      <PageHeader title="Inboxes" />
      <p>
        Meta&apos;s dashboard sends every number&apos;s webhooks to <code>{`${location.origin}${WEBHOOK_PATH}`}</code>, verified with the
        token in <code>MESSAGING_WEBHOOK_VERIFY_TOKEN</code>. The default inbox is the number the <code>MESSAGING_*</code> settings
        describe, read again at each start.
      </p>
      <ErrorNote error={error} />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Number</th>
            <th scope="col">Business account</th>
            <th scope="col">Access token</th>
            <th scope="col">App secret</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {(inboxes ?? []).map((inbox) => (
            <tr>
              <td>
                {inbox.name}
                {inbox.is_default && <span class="label-chip">Default</span>}
              </td>
              <td>{inbox.display_phone_number ?? inbox.phone_number_id ?? 'Sandbox'}</td>
              <td>{inbox.business_account_id ?? '—'}</td>
              <td>{inbox.has_access_token ? 'Stored' : 'None: the sandbox answers sends'}</td>
              <td>{inbox.has_app_secret ? 'Stored' : 'None: webhooks are not verified'}</td>
              <td>{inbox.status === 'active' ? 'Active' : 'Disabled'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

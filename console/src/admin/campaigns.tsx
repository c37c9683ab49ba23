import { useEffect, useState } from 'preact/hooks';
import { api, downloadFile, urlOf, type Schemas } from '../api/client';
import { componentsOf, formOf, type Template } from '../components/template-picker';
import { fullTime } from '../format';
import { Dialog, ErrorNote, Field, LoadMore, PageHeader, useAction, usePages, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type Campaign = Schemas['CampaignResponse'];
type Preview = Schemas['CampaignPreviewResponse'];
type RecipientStatus = Schemas['CampaignRecipientResponse']['status'];

const STATUS_LABELS: Record<Campaign['status'], string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  running: 'Sending',
  paused: 'Paused',
  completed: 'Completed',
  cancelled: 'Cancelled',
};
const RECIPIENT_STATUSES: RecipientStatus[] = ['queued', 'sent', 'delivered', 'read', 'replied', 'failed', 'skipped'];
const PLACEHOLDER_HINT = 'Per recipient: {{contact.name}}, {{contact.phone}} or {{contact.attributes.<key>}}';

const words = (text: string) =>
  text
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean);

/** `key=value` lines as attribute filters; numbers and true/false as such. */
function attributesOf(text: string): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at < 1) continue;
    const value = line.slice(at + 1).trim();
    attributes[line.slice(0, at).trim()] =
      value === 'true' ? true : value === 'false' ? false : value !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
  }
  return attributes;
}

/** The campaigns: created with a preview of the filled message, sent at a pace, followed live, paused, resumed, with each recipient's outcome. */
export function AdminCampaigns() {
  const { stream } = useWorkspace();
  const pages = usePages((cursor) => api.get('/api/v1/campaigns', { query: { limit: 25, cursor } }), []);
  const [live, setLive] = useState<Record<string, Campaign>>({});
  const [creating, setCreating] = useState(false);
  const [openId, setOpenId] = useState<string | null>(null);
  // Every change of a campaign, its totals every 2 s while they move, arrives on the stream.
  useEffect(
    () =>
      stream.on((event) => {
        if (event.type === 'campaign.created') pages.reload();
        else if (event.type === 'campaign.updated') setLive((known) => ({ ...known, [event.data.campaign.id]: event.data.campaign }));
        else if (event.type === 'campaign.deleted') pages.reload();
      }),
    [stream],
  );
  // The stream's place came after the page was read: it is read again.
  useEffect(() => stream.onResync(pages.reload), [stream]);
  const campaigns = pages.items.map((campaign) => live[campaign.id] ?? campaign);
  const open = campaigns.find((campaign) => campaign.id === openId) ?? null;
  return (
    <section class="page">
      <PageHeader title="Campaigns">
        <button type="button" class="button" onClick={() => setCreating(true)}>
          New campaign
        </button>
      </PageHeader>
      <p class="muted">
        A campaign sends one approved template to an audience of contacts, at most so many a second, each once. Contacts who opted out (they
        wrote STOP) are skipped.
      </p>
      {campaigns.length === 0 && !pages.loading && <p>No campaigns yet.</p>}
      {campaigns.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Campaign</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Delivered</th>
              <th scope="col">Replied</th>
              <th scope="col">Failed</th>
            </tr>
          </thead>
          <tbody>
            {campaigns.map((campaign) => (
              <tr>
                <td>
                  <button type="button" class="link-button" onClick={() => setOpenId(campaign.id)}>
                    {campaign.name}
                  </button>
                </td>
                <td>{STATUS_LABELS[campaign.status]}</td>
                <td>
                  <Progress campaign={campaign} />
                </td>
                <td>{campaign.totals.delivered}</td>
                <td>{campaign.totals.replied}</td>
                <td>{campaign.totals.failed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
      {creating && (
        <CampaignEditor
          onClose={() => setCreating(false)}
          onSaved={(campaign) => {
            setCreating(false);
            pages.reload();
            setOpenId(campaign.id);
          }}
        />
      )}
      {open && (
        <CampaignDetail
          campaign={open}
          onChanged={(campaign) => setLive((known) => ({ ...known, [campaign.id]: campaign }))}
          onDeleted={() => {
            setOpenId(null);
            pages.reload();
          }}
          onClose={() => setOpenId(null)}
        />
      )}
    </section>
  );
}

function Progress(props: { campaign: Campaign }) {
  const { recipients, queued } = props.campaign.totals;
  const done = recipients - queued;
  if (recipients === 0) return <span class="muted">not started</span>;
  return (
    <span class="campaign-progress">
      <progress max={recipients} value={done} aria-label={`${props.campaign.name}: ${done} of ${recipients} done`} /> {done} / {recipients}
    </span>
  );
}

/** A new campaign: its inbox, template and parameters, audience and pace, with the audience's size and three filled samples before it is saved. */
function CampaignEditor(props: { onClose: () => void; onSaved: (campaign: Campaign) => void }) {
  const { inboxes, labels } = useWorkspace();
  const [name, setName] = useState('');
  const [inboxId, setInboxId] = useState(inboxes[0]?.id ?? '');
  const [templates, setTemplates] = useState<Template[] | null>(null);
  const [chosen, setChosen] = useState<Template | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [tags, setTags] = useState('');
  const [labelNames, setLabelNames] = useState<string[]>([]);
  const [attributes, setAttributes] = useState('');
  const [rate, setRate] = useState('10');
  const [startAt, setStartAt] = useState('');
  const [preview, setPreview] = useState<Preview | null>(null);
  useEffect(() => {
    setTemplates(null);
    setChosen(null);
    if (!inboxId) return;
    void api
      .get('/api/v1/templates', { query: { status: 'APPROVED', inbox_id: inboxId, limit: 100 } })
      .then((page) => setTemplates(page.data));
  }, [inboxId]);
  const form = chosen ? formOf(chosen) : null;
  const draft = () => ({
    inbox_id: inboxId,
    template: { name: chosen?.name ?? '', language: chosen?.language ?? '', components: (form ? componentsOf(form, values) : []) as never },
    audience: { tags: words(tags), labels: labelNames, attributes: attributesOf(attributes) },
  });
  const check = useAction(async () => setPreview(await api.post('/api/v1/campaigns/preview', { body: draft() })));
  const save = useAction(async (start: boolean) => {
    const scheduledAt = startAt ? new Date(startAt).toISOString() : null;
    const campaign = await api.post('/api/v1/campaigns', {
      body: { ...draft(), name: name.trim(), rate_per_second: Number(rate), scheduled_at: scheduledAt },
    });
    props.onSaved(start ? await api.post('/api/v1/campaigns/{id}/schedule', { params: { id: campaign.id }, body: {} }) : campaign);
  });
  const input = (key: string, label: string) => (
    <Field label={label} hint={PLACEHOLDER_HINT}>
      <input type="text" required value={values[key] ?? ''} onInput={(e) => setValues({ ...values, [key]: valueOf(e) })} />
    </Field>
  );
  return (
    <Dialog title="New campaign" onClose={props.onClose}>
      <form
        class="campaign-editor"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(true);
        }}
      >
        <Field label="Name">
          <input type="text" required maxLength={200} value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="Inbox">
          <select value={inboxId} onChange={(e) => setInboxId(valueOf(e))}>
            {inboxes.map((inbox) => (
              <option value={inbox.id}>{inbox.name}</option>
            ))}
          </select>
        </Field>
        <Field label="Template">
          <select
            required
            value={chosen?.id ?? ''}
            onChange={(e) => {
              setChosen(templates?.find((t) => t.id === valueOf(e)) ?? null);
              setValues({});
              setPreview(null);
            }}
          >
            <option value="">
              {templates === null ? 'Loading…' : templates.length === 0 ? 'No approved template' : 'Choose a template'}
            </option>
            {(templates ?? []).map((t) => (
              <option value={t.id}>
                {t.name} ({t.language})
              </option>
            ))}
          </select>
        </Field>
        {form && (
          <>
            {form.bodyText && <p class="template-preview">{form.bodyText}</p>}
            {form.headerText.map((n) => input(`header.${n}`, `Header {{${n}}}`))}
            {form.headerMedia && input('header.media', `Header ${form.headerMedia} (https link)`)}
            {form.body.map((n) => input(`body.${n}`, `Body {{${n}}}`))}
            {form.buttons.map((b) => input(`button.${b.index}`, `Button “${b.text}”`))}
          </>
        )}
        <fieldset class="fieldset">
          <legend>Audience: the contacts that match every filter given</legend>
          <Field label="Tags (any of them, separated by commas)">
            <input type="text" value={tags} onInput={(e) => setTags(valueOf(e))} />
          </Field>
          <Field label="Labels (a conversation with any of them)">
            <select multiple onChange={(e) => setLabelNames([...e.currentTarget.selectedOptions].map((option) => option.value))}>
              {labels.map((label) => (
                <option value={label.name} selected={labelNames.includes(label.name)}>
                  {label.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Attributes (one key=value a line, each equal)">
            <textarea rows={2} value={attributes} onInput={(e) => setAttributes(valueOf(e))} />
          </Field>
        </fieldset>
        <Field label="Messages a second at most" hint="Keep it below the number's throughput (80 by default)">
          <input type="number" min={1} max={1000} required value={rate} onInput={(e) => setRate(valueOf(e))} />
        </Field>
        <Field label="Start at (empty: at once)">
          <input type="datetime-local" value={startAt} onInput={(e) => setStartAt(valueOf(e))} />
        </Field>
        <button type="button" class="button secondary" disabled={!chosen || check.pending} onClick={() => void check.run()}>
          Preview
        </button>
        {preview && (
          <div class="campaign-preview" role="status">
            <p>
              {preview.audience.contacts} contacts
              {preview.audience.opted_out + preview.audience.blocked > 0 &&
                ` (${preview.audience.opted_out} opted out and ${preview.audience.blocked} blocked: skipped)`}
            </p>
            <ul>
              {preview.samples.map((sample) => (
                <li>
                  <strong>{sample.contact.name ?? sample.contact.phone}</strong>:{' '}
                  {sample.text ?? <span class="muted">skipped, {sample.skipped}</span>}
                </li>
              ))}
            </ul>
          </div>
        )}
        <ErrorNote error={check.error ?? save.error} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" disabled={save.pending || !chosen} onClick={() => void save.run(false)}>
            Save as draft
          </button>
          <button type="submit" class="button" disabled={save.pending || !chosen}>
            {startAt ? 'Schedule' : 'Start sending'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** One campaign: its totals as they move, its controls, and each recipient's outcome. */
function CampaignDetail(props: {
  campaign: Campaign;
  onChanged: (campaign: Campaign) => void;
  onDeleted: () => void;
  onClose: () => void;
}) {
  const { campaign } = props;
  const [status, setStatus] = useState<RecipientStatus | ''>('');
  const recipients = usePages(
    (cursor) =>
      api.get('/api/v1/campaigns/{id}/recipients', {
        params: { id: campaign.id },
        query: { limit: 50, cursor, status: status || undefined },
      }),
    // Read again when the campaign's status changes: its end shows every outcome.
    [campaign.id, status, campaign.status],
  );
  const act = useAction(async (action: 'schedule' | 'pause' | 'resume' | 'cancel') => {
    if (action === 'cancel' && !confirm(`Cancel ${campaign.name}? Those not sent to yet will be skipped.`)) return;
    props.onChanged(await api.post(`/api/v1/campaigns/{id}/${action}`, { params: { id: campaign.id }, body: {} }));
    recipients.reload();
  });
  const remove = useAction(async () => {
    if (!confirm(`Delete ${campaign.name} and its recipient list? The messages it sent stay.`)) return;
    await api.delete('/api/v1/campaigns/{id}', { params: { id: campaign.id } });
    props.onDeleted();
  });
  const download = useAction(() =>
    downloadFile(urlOf('/api/v1/campaigns/{id}/recipients.csv', { id: campaign.id }, { status: status || undefined }), 'recipients.csv'),
  );
  const totals = campaign.totals;
  const can = (action: 'schedule' | 'pause' | 'resume' | 'cancel') =>
    ({
      schedule: campaign.status === 'draft',
      pause: campaign.status === 'running' || campaign.status === 'scheduled',
      resume: campaign.status === 'paused',
      cancel: !['completed', 'cancelled'].includes(campaign.status),
    })[action];
  return (
    <Dialog title={campaign.name} onClose={props.onClose}>
      <p>
        {STATUS_LABELS[campaign.status]}
        {campaign.status_reason && <span class="error"> ({campaign.status_reason})</span>}
        {campaign.scheduled_at && campaign.status === 'scheduled' && `, starts ${fullTime(campaign.scheduled_at)}`}. Template{' '}
        {campaign.template.name}, {campaign.rate_per_second} a second.
      </p>
      <table class="table campaign-totals" aria-live="polite">
        <caption>Totals</caption>
        <tbody>
          {(['recipients', 'queued', 'sent', 'delivered', 'read', 'replied', 'failed', 'skipped'] as const).map((key) => (
            <tr>
              <th scope="row">{key[0].toUpperCase() + key.slice(1)}</th>
              <td>{totals[key]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="dialog-actions">
        {can('schedule') && (
          <button type="button" class="button" disabled={act.pending} onClick={() => void act.run('schedule')}>
            {campaign.scheduled_at ? 'Schedule' : 'Start sending'}
          </button>
        )}
        {can('pause') && (
          <button type="button" class="button secondary" disabled={act.pending} onClick={() => void act.run('pause')}>
            Pause
          </button>
        )}
        {can('resume') && (
          <button type="button" class="button" disabled={act.pending} onClick={() => void act.run('resume')}>
            Resume
          </button>
        )}
        {can('cancel') && (
          <button type="button" class="button secondary" disabled={act.pending} onClick={() => void act.run('cancel')}>
            Cancel campaign
          </button>
        )}
        {!['scheduled', 'running', 'paused'].includes(campaign.status) && (
          <button type="button" class="button danger" disabled={remove.pending} onClick={() => void remove.run()}>
            Delete
          </button>
        )}
      </div>
      <ErrorNote error={act.error ?? remove.error ?? download.error} />
      <h2>Recipients</h2>
      <div class="toolbar">
        <Field label="Status">
          <select value={status} onChange={(e) => setStatus(valueOf(e) as RecipientStatus | '')}>
            <option value="">All</option>
            {RECIPIENT_STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </Field>
        <button type="button" class="button secondary" onClick={() => void download.run()}>
          Download CSV
        </button>
      </div>
      {recipients.items.length === 0 && !recipients.loading && <p>No recipients{status ? ` ${status}` : ''} yet.</p>}
      {recipients.items.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Contact</th>
              <th scope="col">Status</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {recipients.items.map((recipient) => (
              <tr>
                <td>
                  {recipient.contact
                    ? (recipient.contact.name ?? recipient.contact.phone ?? recipient.contact.wa_user_id)
                    : 'deleted contact'}
                </td>
                <td>{recipient.status}</td>
                <td>
                  {recipient.reason ?? ''}
                  {recipient.error_code !== null && ` (${recipient.error_code})`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore hasMore={recipients.hasMore} loading={recipients.loading} onMore={() => void recipients.more()} />
    </Dialog>
  );
}

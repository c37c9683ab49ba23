import { useState } from 'preact/hooks';
import { api, downloadFile, type Schemas, urlOf } from '../api/client';
import { customerHandle } from '../format';
import { Dialog, ErrorNote, Field, LoadMore, PageHeader, useAction, usePages, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type Contact = Schemas['ContactResponse'];
type Attribute = { key: string; value: string };

/** An attribute's value as typed: numbers and booleans keep their type, as the import does. */
function parseValue(value: string): string | number | boolean {
  if (value === 'true' || value === 'false') return value === 'true';
  if (value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return value;
}

export function ContactsPage() {
  const admin = useWorkspace().me.role === 'admin';
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<Contact | 'new' | null>(null);
  const [merging, setMerging] = useState<Contact | null>(null);
  const [report, setReport] = useState<Schemas['ImportResponse'] | null>(null);
  const pages = usePages((cursor) => api.get('/api/v1/contacts', { query: { q: search || undefined, cursor, limit: 50 } }), [search]);
  const importFile = useAction(async (file: File) => {
    setReport(await api.postText('/api/v1/contacts/import', await file.text(), 'text/csv'));
    pages.reload();
  });
  // Blocking goes through the channel's block list, which holds only customers who wrote in the last 24 hours: its refusal shows as the error.
  const changeBlock = useAction(async (contact: Contact) => {
    const path = contact.blocked ? '/api/v1/contacts/{id}/unblock' : '/api/v1/contacts/{id}/block';
    await api.post(path, { params: { id: contact.id } });
    pages.reload();
  });
  // Campaigns skip a contact opted out: the customer's STOP sets it, START or an admin here clears it.
  const changeOptOut = useAction(async (contact: Contact) => {
    await api.patch('/api/v1/contacts/{id}', { params: { id: contact.id }, body: { opted_out: !contact.opted_out } });
    pages.reload();
  });
  const exportAll = useAction(() => downloadFile(urlOf('/api/v1/contacts/export', {}, { q: search || undefined }), 'contacts.csv'));

  return (
    <section class="page">
      <PageHeader title="Contacts">
        <button type="button" class="button" onClick={() => setEditing('new')}>
          New contact
        </button>
        <label class="button secondary file-button">
          Import CSV
          <input
            type="file"
            accept=".csv,text/csv"
            class="visually-hidden"
            aria-label="Import contacts from a CSV file"
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              if (file) void importFile.run(file);
              event.currentTarget.value = '';
            }}
          />
        </label>
        <button type="button" class="button secondary" disabled={exportAll.pending} onClick={() => void exportAll.run()}>
          Export CSV
        </button>
      </PageHeader>
      <ErrorNote error={importFile.error ?? exportAll.error ?? changeBlock.error ?? changeOptOut.error} />
      {report && (
        <div class="report" role="status">
          <p>
            Import: {report.created} created, {report.updated} updated, {report.refused.length} refused.
          </p>
          {report.refused.length > 0 && (
            <ul>
              {report.refused.map((r) => (
                <li>
                  Line {r.line}: {r.error}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <form
        role="search"
        class="search-row"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(q.trim());
        }}
      >
        <Field label="Search contacts">
          <input type="search" value={q} placeholder="Name, phone, e-mail or username" onInput={(e) => setQ(valueOf(e))} />
        </Field>
        <button type="submit" class="button secondary">
          Search
        </button>
      </form>
      <ErrorNote error={pages.error} />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Phone or username</th>
            <th scope="col">E-mail</th>
            <th scope="col">Tags</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((contact) => (
            <tr>
              <td>
                {contact.name ?? '—'}
                {contact.blocked && <span class="label-chip blocked-chip">Blocked</span>}
                {contact.opted_out && <span class="label-chip blocked-chip">Opted out of campaigns</span>}
              </td>
              <td>{customerHandle(contact)}</td>
              <td>{contact.email ?? '—'}</td>
              <td>{contact.tags.join(', ')}</td>
              <td class="row-actions">
                <button
                  type="button"
                  class="link-button"
                  onClick={() => setEditing(contact)}
                  aria-label={`Edit ${contact.name ?? customerHandle(contact)}`}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="link-button"
                  onClick={() => setMerging(contact)}
                  aria-label={`Merge another contact into ${contact.name ?? customerHandle(contact)}`}
                >
                  Merge
                </button>
                <button
                  type="button"
                  class="link-button"
                  disabled={changeBlock.pending}
                  onClick={() => void changeBlock.run(contact)}
                  aria-label={`${contact.blocked ? 'Unblock' : 'Block'} ${contact.name ?? customerHandle(contact)}`}
                >
                  {contact.blocked ? 'Unblock' : 'Block'}
                </button>
                {admin && (
                  <button
                    type="button"
                    class="link-button"
                    disabled={changeOptOut.pending}
                    onClick={() => void changeOptOut.run(contact)}
                    aria-label={`${contact.opted_out ? 'Opt in' : 'Opt out'} ${contact.name ?? customerHandle(contact)} of campaigns`}
                  >
                    {contact.opted_out ? 'Opt in' : 'Opt out'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
      {editing && (
        <ContactForm
          contact={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            pages.reload();
          }}
        />
      )}
      {merging && (
        <MergeDialog
          into={merging}
          onClose={() => setMerging(null)}
          onMerged={() => {
            setMerging(null);
            pages.reload();
          }}
        />
      )}
    </section>
  );
}

function ContactForm(props: { contact: Contact | null; onClose: () => void; onSaved: () => void }) {
  const { contact } = props;
  const [phone, setPhone] = useState(contact?.phone ?? '');
  const [name, setName] = useState(contact?.name ?? '');
  const [email, setEmail] = useState(contact?.email ?? '');
  const [tags, setTags] = useState(contact?.tags.join(', ') ?? '');
  const [attributes, setAttributes] = useState<Attribute[]>(
    Object.entries(contact?.attributes ?? {}).map(([key, value]) => ({ key, value: String(value) })),
  );
  const save = useAction(async () => {
    const body = {
      // A customer the channel knows only by user id keeps no phone until someone gives one.
      ...(phone.trim() || !contact?.wa_user_id ? { phone: phone.trim() } : {}),
      name: name.trim() || null,
      email: email.trim() || null,
      tags: tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      attributes: Object.fromEntries(attributes.filter((a) => a.key.trim()).map((a) => [a.key.trim(), parseValue(a.value)])),
    };
    if (contact) await api.patch('/api/v1/contacts/{id}', { params: { id: contact.id }, body });
    else await api.post('/api/v1/contacts', { body });
    props.onSaved();
  });
  const remove = useAction(async () => {
    if (contact && confirm(`Delete ${contact.name ?? customerHandle(contact)}?`)) {
      await api.delete('/api/v1/contacts/{id}', { params: { id: contact.id } });
      props.onSaved();
    }
  });
  return (
    <Dialog title={contact ? 'Edit contact' : 'New contact'} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <Field label="Phone (E.164, with +)">
          <input type="tel" required={!contact?.wa_user_id} value={phone} onInput={(e) => setPhone(valueOf(e))} />
        </Field>
        {contact?.wa_user_id && (
          <p class="muted">
            WhatsApp user id {contact.wa_user_id}
            {contact.username && ` · username @${contact.username}`}
          </p>
        )}
        <Field label="Name">
          <input type="text" value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="E-mail">
          <input type="email" value={email} onInput={(e) => setEmail(valueOf(e))} />
        </Field>
        <Field label="Tags (comma-separated)">
          <input type="text" value={tags} onInput={(e) => setTags(valueOf(e))} />
        </Field>
        <fieldset class="attributes">
          <legend>Attributes</legend>
          {attributes.map((attribute, index) => (
            <div class="attribute-row">
              <Field label="Key">
                <input
                  type="text"
                  value={attribute.key}
                  onInput={(e) => setAttributes(attributes.map((a, i) => (i === index ? { ...a, key: valueOf(e) } : a)))}
                />
              </Field>
              <Field label="Value">
                <input
                  type="text"
                  value={attribute.value}
                  onInput={(e) => setAttributes(attributes.map((a, i) => (i === index ? { ...a, value: valueOf(e) } : a)))}
                />
              </Field>
              <button type="button" class="link-button" onClick={() => setAttributes(attributes.filter((_, i) => i !== index))}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" class="button secondary" onClick={() => setAttributes([...attributes, { key: '', value: '' }])}>
            Add attribute
          </button>
        </fieldset>
        <ErrorNote error={save.error ?? remove.error} />
        <div class="dialog-actions">
          {contact && (
            <button type="button" class="button danger" onClick={() => void remove.run()}>
              Delete
            </button>
          )}
          <button type="submit" class="button" disabled={save.pending}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function MergeDialog(props: { into: Contact; onClose: () => void; onMerged: () => void }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Contact[]>([]);
  const find = useAction(async () =>
    setFound((await api.get('/api/v1/contacts', { query: { q, limit: 10 } })).data.filter((c) => c.id !== props.into.id)),
  );
  const merge = useAction(async (from: Contact) => {
    await api.post('/api/v1/contacts/{id}/merge', { params: { id: props.into.id }, body: { from: from.id } });
    props.onMerged();
  });
  return (
    <Dialog title={`Merge into ${props.into.name ?? customerHandle(props.into)}`} onClose={props.onClose}>
      <p>The other contact's conversation and messages move here, and the other contact is deleted.</p>
      <form
        class="search-row"
        onSubmit={(event) => {
          event.preventDefault();
          void find.run();
        }}
      >
        <Field label="Find the duplicate">
          <input type="search" value={q} onInput={(e) => setQ(valueOf(e))} />
        </Field>
        <button type="submit" class="button secondary">
          Find
        </button>
      </form>
      <ul class="plain-list">
        {found.map((c) => (
          <li>
            {c.name ?? '—'} {customerHandle(c)}{' '}
            <button type="button" class="button secondary" onClick={() => void merge.run(c)}>
              Merge this one
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={find.error ?? merge.error} />
    </Dialog>
  );
}

import { useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { Dialog, ErrorNote, Field, LoadMore, PageHeader, useAction, usePages, valueOf } from '../ui';

type Canned = Schemas['CannedResponseResponse'];

export function AdminCannedResponses() {
  const pages = usePages((cursor) => api.get('/api/v1/canned-responses', { query: { cursor, limit: 100 } }), []);
  const [editing, setEditing] = useState<Canned | 'new' | null>(null);
  const remove = useAction(async (canned: Canned) => {
    if (!confirm(`Delete /${canned.shortcut}?`)) return;
    await api.delete('/api/v1/canned-responses/{id}', { params: { id: canned.id } });
    pages.reload();
  });
  return (
    <section class="page">
      <PageHeader title="Canned responses">
        <button type="button" class="button" onClick={() => setEditing('new')}>
          New canned response
        </button>
      </PageHeader>
      <p class="muted">Type / and the shortcut in the composer to use one.</p>
      <ErrorNote error={pages.error ?? remove.error} />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Shortcut</th>
            <th scope="col">Text</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((canned) => (
            <tr>
              <td>/{canned.shortcut}</td>
              <td>{canned.text}</td>
              <td class="row-actions">
                <button type="button" class="link-button" onClick={() => setEditing(canned)} aria-label={`Edit /${canned.shortcut}`}>
                  Edit
                </button>
                <button
                  type="button"
                  class="link-button danger-text"
                  onClick={() => void remove.run(canned)}
                  aria-label={`Delete /${canned.shortcut}`}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <LoadMore hasMore={pages.hasMore} loading={pages.loading} onMore={() => void pages.more()} />
      {editing && (
        <CannedForm
          canned={editing === 'new' ? null : editing}
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

function CannedForm(props: { canned: Canned | null; onClose: () => void; onSaved: () => void }) {
  const [shortcut, setShortcut] = useState(props.canned?.shortcut ?? '');
  const [text, setText] = useState(props.canned?.text ?? '');
  const save = useAction(async () => {
    const body = { shortcut: shortcut.trim().replace(/^\//, ''), text };
    if (props.canned) await api.patch('/api/v1/canned-responses/{id}', { params: { id: props.canned.id }, body });
    else await api.post('/api/v1/canned-responses', { body });
    props.onSaved();
  });
  return (
    <Dialog title={props.canned ? 'Edit canned response' : 'New canned response'} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <Field label="Shortcut" hint="Letters, digits, - and _">
          <input type="text" required pattern="/?[A-Za-z0-9_-]{1,32}" value={shortcut} onInput={(e) => setShortcut(valueOf(e))} />
        </Field>
        <Field label="Text">
          <textarea rows={4} required value={text} onInput={(e) => setText(valueOf(e))} />
        </Field>
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

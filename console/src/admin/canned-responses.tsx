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
              <td>
                {canned.interactive && <span class="badge">{String((canned.interactive as { type?: unknown }).type)}</span>} {canned.text}
              </td>
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
  const [kind, setKind] = useState<'text' | 'interactive'>(props.canned?.interactive ? 'interactive' : 'text');
  const [interactive, setInteractive] = useState(props.canned?.interactive ? JSON.stringify(props.canned.interactive, null, 2) : '');
  const save = useAction(async () => {
    let body: { shortcut: string; text?: string; interactive?: Record<string, never> | null };
    if (kind === 'interactive') {
      let parsed: Record<string, never>;
      try {
        parsed = JSON.parse(interactive) as Record<string, never>;
      } catch {
        throw new Error('The interactive message is not valid JSON');
      }
      body = { shortcut: shortcut.trim().replace(/^\//, ''), interactive: parsed };
    } else {
      body = { shortcut: shortcut.trim().replace(/^\//, ''), text, ...(props.canned?.interactive ? { interactive: null } : {}) };
    }
    if (props.canned) await api.patch('/api/v1/canned-responses/{id}', { params: { id: props.canned.id }, body });
    else await api.post('/api/v1/canned-responses', { body: { ...body, interactive: body.interactive ?? undefined } });
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
          <input type="text" required pattern="/?[A-Za-z0-9_\-]{1,32}" value={shortcut} onInput={(e) => setShortcut(valueOf(e))} />
        </Field>
        <Field label="Kind">
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as 'text' | 'interactive')}>
            <option value="text">Text</option>
            <option value="interactive">Interactive: buttons, a list, a link or a form</option>
          </select>
        </Field>
        {kind === 'text' ? (
          <Field label="Text">
            <textarea rows={4} required value={text} onInput={(e) => setText(valueOf(e))} />
          </Field>
        ) : (
          <Field
            label="Interactive message (JSON)"
            hint='As the channel takes it, e.g. {"type":"list","body":{"text":"…"},"action":{"button":"Choose","sections":[{"rows":[{"id":"a","title":"A"}]}]}}'
          >
            <textarea rows={10} required class="code" value={interactive} onInput={(e) => setInteractive(valueOf(e))} />
          </Field>
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

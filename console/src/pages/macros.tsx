import { useEffect, useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { actionLabel, ActionsEditor, type RuleAction } from '../components/actions-editor';
import { Dialog, ErrorNote, Field, PageHeader, useAction, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type Macro = Schemas['MacroResponse'];

/** The team's macros and one's own: saved actions run on a conversation from its actions or with `/` in the composer. */
export function MacrosPage() {
  const { me } = useWorkspace();
  const admin = me.role === 'admin';
  const [macros, setMacros] = useState<Macro[] | null>(null);
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<Macro | 'new' | null>(null);
  useEffect(() => {
    void api.get('/api/v1/macros').then((page) => setMacros(page.data));
  }, [version]);
  const remove = useAction(async (macro: Macro) => {
    if (!confirm(`Delete the macro ${macro.name}?`)) return;
    await api.delete('/api/v1/macros/{id}', { params: { id: macro.id } });
    setVersion((v) => v + 1);
  });
  return (
    <section class="page">
      <PageHeader title="Macros">
        <button type="button" class="button" onClick={() => setEditing('new')}>
          New macro
        </button>
      </PageHeader>
      <p class="muted">Run one on a conversation from its Macros menu, or type / and its name in the reply box.</p>
      <ErrorNote error={remove.error} />
      {macros && macros.length === 0 && <p>No macros yet.</p>}
      {macros && macros.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Macro</th>
              <th scope="col">Does</th>
              <th scope="col">For</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {macros.map((macro) => {
              const mayChange = macro.visibility === 'personal' || admin;
              return (
                <tr>
                  <td>{macro.name}</td>
                  <td>{macro.actions.map(actionLabel).join(', ')}</td>
                  <td>{macro.visibility === 'team' ? 'The team' : 'Me'}</td>
                  <td class="row-actions">
                    {mayChange && (
                      <>
                        <button
                          type="button"
                          class="link-button"
                          onClick={() => setEditing(macro)}
                          aria-label={`Edit the macro ${macro.name}`}
                        >
                          Edit
                        </button>
                        <button
                          type="button"
                          class="link-button danger-text"
                          onClick={() => void remove.run(macro)}
                          aria-label={`Delete the macro ${macro.name}`}
                        >
                          Delete
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {editing && (
        <MacroEditor
          macro={editing === 'new' ? null : editing}
          mayShare={admin}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            setVersion((v) => v + 1);
          }}
        />
      )}
    </section>
  );
}

function MacroEditor(props: { macro: Macro | null; mayShare: boolean; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(props.macro?.name ?? '');
  const [visibility, setVisibility] = useState<Macro['visibility']>(props.macro?.visibility ?? 'personal');
  const [actions, setActions] = useState<RuleAction[]>(props.macro?.actions ?? []);
  const save = useAction(async () => {
    const body = { name: name.trim(), visibility, actions };
    if (props.macro) await api.patch('/api/v1/macros/{id}', { params: { id: props.macro.id }, body });
    else await api.post('/api/v1/macros', { body });
    props.onSaved();
  });
  return (
    <Dialog title={props.macro ? `Edit the macro ${props.macro.name}` : 'New macro'} onClose={props.onClose}>
      <form
        class="rule-editor"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <Field label="Name">
          <input type="text" required maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        {props.mayShare && (
          <Field label="For">
            <select value={visibility} onChange={(e) => setVisibility(valueOf(e) as Macro['visibility'])}>
              <option value="personal">Me</option>
              <option value="team">The team</option>
            </select>
          </Field>
        )}
        <ActionsEditor actions={actions} onChange={setActions} />
        <ErrorNote error={save.error} />
        <div class="dialog-actions">
          <button type="submit" class="button" disabled={save.pending || actions.length === 0}>
            Save macro
          </button>
        </div>
      </form>
    </Dialog>
  );
}

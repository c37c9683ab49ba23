import { useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { ErrorNote, Field, PageHeader, useAction, valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type Label = Schemas['LabelResponse'];

export function AdminLabels() {
  const { labels, reloadLabels } = useWorkspace();
  const [name, setName] = useState('');
  const [color, setColor] = useState('#2f6fdf');
  const create = useAction(async () => {
    await api.post('/api/v1/labels', { body: { name: name.trim(), color } });
    setName('');
    reloadLabels();
  });
  const update = useAction(async (label: Label, body: { name?: string; color?: string }) => {
    await api.patch('/api/v1/labels/{id}', { params: { id: label.id }, body });
    reloadLabels();
  });
  const remove = useAction(async (label: Label) => {
    if (!confirm(`Delete the label ${label.name}? Conversations lose it.`)) return;
    await api.delete('/api/v1/labels/{id}', { params: { id: label.id } });
    reloadLabels();
  });
  return (
    <section class="page">
      <PageHeader title="Labels" />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <Field label="Name">
          <input type="text" required value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="Colour">
          <input type="color" value={color} onInput={(e) => setColor(valueOf(e))} />
        </Field>
        <button type="submit" class="button" disabled={create.pending}>
          Add label
        </button>
      </form>
      <ErrorNote error={create.error ?? update.error ?? remove.error} />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Colour</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {labels.map((label) => (
            <tr>
              <td>
                <input
                  type="text"
                  aria-label={`Name of the label ${label.name}`}
                  value={label.name}
                  onChange={(e) => valueOf(e).trim() !== label.name && void update.run(label, { name: valueOf(e).trim() })}
                />
              </td>
              <td>
                <input
                  type="color"
                  aria-label={`Colour of the label ${label.name}`}
                  value={label.color}
                  onChange={(e) => void update.run(label, { color: valueOf(e) })}
                />
              </td>
              <td>
                <button
                  type="button"
                  class="link-button danger-text"
                  onClick={() => void remove.run(label)}
                  aria-label={`Delete the label ${label.name}`}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { api, type Message, type Schemas } from '../api/client';
import { ErrorNote, Field, useAction, valueOf } from '../ui';

export type Template = Schemas['TemplateResponse'];
interface DefinitionComponent {
  type?: string;
  format?: string;
  text?: string;
  buttons?: { type?: string; text?: string; url?: string }[];
}

/** The `{{1}}` or `{{name}}` placeholders of a text, in order. */
function placeholders(text: string | undefined): string[] {
  return [...(text ?? '').matchAll(/\{\{\s*([\w]+)\s*\}\}/g)].map((match) => match[1]);
}

/** The form a template needs, read from its definition in the catalogue: header, body and button parameters. */
export function formOf(template: Template) {
  const definition = template.components as unknown as DefinitionComponent[];
  const header = definition.find((c) => c.type?.toUpperCase() === 'HEADER');
  const body = definition.find((c) => c.type?.toUpperCase() === 'BODY');
  const buttons = definition.find((c) => c.type?.toUpperCase() === 'BUTTONS');
  const format = header?.format?.toLowerCase() ?? null;
  return {
    headerText: format === 'text' ? placeholders(header?.text) : [],
    headerMedia: format && format !== 'text' && format !== 'location' ? format : null,
    body: placeholders(body?.text),
    bodyText: body?.text ?? '',
    buttons: template.parameters.buttons
      .filter((b) => b.parameters > 0)
      .map((b) => ({ ...b, text: buttons?.buttons?.[b.index]?.text ?? `Button ${b.index + 1}` })),
  };
}

function parameter(name: string, value: string) {
  return /^\d+$/.test(name) ? { type: 'text', text: value } : { type: 'text', parameter_name: name, text: value };
}

/** The send's `components` for the template's form filled with `values` (keyed `header.1`, `body.name`, `button.0`, `header.media`). */
export function componentsOf(form: ReturnType<typeof formOf>, values: Record<string, string>): Record<string, unknown>[] {
  const components: Record<string, unknown>[] = [];
  if (form.headerText.length > 0)
    components.push({ type: 'header', parameters: form.headerText.map((n) => parameter(n, values[`header.${n}`] ?? '')) });
  if (form.headerMedia)
    components.push({
      type: 'header',
      parameters: [{ type: form.headerMedia, [form.headerMedia]: { link: values['header.media'] ?? '' } }],
    });
  if (form.body.length > 0) components.push({ type: 'body', parameters: form.body.map((n) => parameter(n, values[`body.${n}`] ?? '')) });
  for (const button of form.buttons) {
    const value = values[`button.${button.index}`] ?? '';
    components.push({
      type: 'button',
      sub_type: button.type.toLowerCase(),
      index: String(button.index),
      parameters: [button.type.toLowerCase() === 'quick_reply' ? { type: 'payload', payload: value } : { type: 'text', text: value }],
    });
  }
  return components;
}

/** Outside the 24-hour window only an approved template may be sent: pick one of its inbox's catalogue, fill its parameters, send. */
export function TemplatePicker(props: {
  conversationId: string;
  inboxId: string;
  windowOpen: boolean;
  onSent: (message: Message) => void;
}) {
  const [templates, setTemplates] = useState<Template[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [chosen, setChosen] = useState<Template | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});

  useEffect(() => {
    setTemplates(null);
    setChosen(null);
    api
      .get('/api/v1/templates', { query: { status: 'APPROVED', inbox_id: props.inboxId, limit: 100 } })
      .then((page) => setTemplates(page.data), setLoadError);
  }, [props.inboxId]);

  const form = chosen ? formOf(chosen) : null;
  const send = useAction(async () => {
    if (!chosen || !form) return;
    const components = componentsOf(form, values);
    props.onSent(
      await api.post('/api/v1/conversations/{id}/messages', {
        params: { id: props.conversationId },
        body: { type: 'template', template: { name: chosen.name, language: chosen.language, components: components as never } },
      }),
    );
    setChosen(null);
    setValues({});
  });

  const input = (key: string, label: string, type: 'text' | 'url' = 'text') => (
    <Field label={label}>
      <input type={type as 'text'} required value={values[key] ?? ''} onInput={(e) => setValues({ ...values, [key]: valueOf(e) })} />
    </Field>
  );

  return (
    <form
      class="template-picker"
      onSubmit={(event) => {
        event.preventDefault();
        void send.run();
      }}
    >
      {!props.windowOpen && <p class="muted">Outside the 24-hour window the customer can only be sent an approved template.</p>}
      <ErrorNote error={loadError} />
      <Field label="Template">
        <select
          value={chosen?.id ?? ''}
          onChange={(event) => {
            setChosen(templates?.find((t) => t.id === valueOf(event)) ?? null);
            setValues({});
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
          {form.headerMedia && input('header.media', `Header ${form.headerMedia} (https link)`, 'url')}
          {form.headerText.map((n) => input(`header.${n}`, `Header {{${n}}}`))}
          {form.body.map((n) => input(`body.${n}`, `Body {{${n}}}`))}
          {form.buttons.map((b) => input(`button.${b.index}`, `Button “${b.text}”`))}
          <ErrorNote error={send.error} />
          <button type="submit" class="button" disabled={send.pending}>
            {send.pending ? 'Sending…' : 'Send template'}
          </button>
        </>
      )}
    </form>
  );
}

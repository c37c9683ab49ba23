import { isURL, ValidateBy } from 'class-validator';

/**
 * Interactive messages as the channel takes them (`{"type":"interactive","interactive":{…}}`), and
 * its limits on them, checked before a message is queued so that the channel never sees a body it
 * would refuse: the Cloud API refuses the whole message (#131009, #100) for one title a character
 * too long, after the agent has moved on.
 */

export const INTERACTIVE_TYPES = ['button', 'list', 'cta_url', 'flow'] as const;
export type InteractiveType = (typeof INTERACTIVE_TYPES)[number];

/** The channel's limits, in characters (Unicode code points, as the channel counts them). */
export const INTERACTIVE_LIMITS = {
  body: 1024,
  header: 60,
  footer: 60,
  buttons: 3,
  buttonTitle: 20,
  buttonId: 256,
  listButton: 20,
  sections: 10,
  rows: 10,
  sectionTitle: 24,
  rowTitle: 24,
  rowId: 200,
  rowDescription: 72,
  ctaDisplayText: 20,
  url: 2000,
  flowCta: 20,
} as const;

const MEDIA_HEADERS = ['image', 'video', 'document'] as const;
/** The header kinds each type takes: a list and a flow show a text header only. */
const HEADERS: Record<InteractiveType, readonly string[]> = {
  button: ['text', ...MEDIA_HEADERS],
  list: ['text'],
  cta_url: ['text', ...MEDIA_HEADERS],
  flow: ['text'],
};
const FLOW_MODES = ['draft', 'published'];
/** What the channel counts as an emoji in a flow's button, which it refuses. */
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const FLOW_ACTIONS = ['navigate', 'data_exchange'];

type Fields = Record<string, unknown>;

/** A problem found: the sentence the 400 answers, naming the field. */
class Refusal extends Error {}

/**
 * The first thing in an interactive payload that the channel would refuse, as a sentence naming
 * the field (`interactive.action.buttons[2].reply.title must be at most 20 characters`); null
 * when the channel takes it.
 */
export function interactiveProblem(value: unknown): string | null {
  try {
    checkInteractive(object(value, 'interactive'));
    return null;
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
}

/** Validates a request's interactive payload (a send, a canned response): the 400 names the first field the channel would refuse. */
export function IsInteractiveMessage(): PropertyDecorator {
  return ValidateBy({
    name: 'isInteractiveMessage',
    validator: {
      validate: (value: unknown) => interactiveProblem(value) === null,
      defaultMessage: (args) => interactiveProblem(args?.value) ?? 'interactive is invalid',
    },
  });
}

/** The body of an interactive payload that interactiveProblem took: the text a list, the search and the thread show. */
export function interactiveBodyText(interactive: Fields): string {
  return (interactive.body as { text: string }).text;
}

/** A header sent with one of our uploads (`{"type":"image","image":{"media_id":"med_…"}}`): the message's media. */
export function interactiveHeaderUpload(interactive: Fields): { mediaId: string; mediaType: (typeof MEDIA_HEADERS)[number] } | null {
  const header = interactive.header as Fields | undefined;
  const kind = header?.type as (typeof MEDIA_HEADERS)[number] | undefined;
  if (!kind || !(MEDIA_HEADERS as readonly string[]).includes(kind)) return null;
  const media = header![kind] as Fields | undefined;
  return typeof media?.media_id === 'string' ? { mediaId: media.media_id, mediaType: kind } : null;
}

function checkInteractive(interactive: Fields): void {
  only(interactive, 'interactive', ['type', 'header', 'body', 'footer', 'action']);
  const type = oneOf(interactive.type, 'interactive.type', INTERACTIVE_TYPES);
  if (interactive.header !== undefined) checkHeader(object(interactive.header, 'interactive.header'), HEADERS[type]);
  const body = object(interactive.body, 'interactive.body');
  only(body, 'interactive.body', ['text']);
  text(body.text, 'interactive.body.text', INTERACTIVE_LIMITS.body);
  if (interactive.footer !== undefined) {
    const footer = object(interactive.footer, 'interactive.footer');
    only(footer, 'interactive.footer', ['text']);
    text(footer.text, 'interactive.footer.text', INTERACTIVE_LIMITS.footer);
  }
  const action = object(interactive.action, 'interactive.action');
  if (type === 'button') checkButtons(action);
  else if (type === 'list') checkList(action);
  else if (type === 'cta_url') checkCtaUrl(action);
  else checkFlow(action);
}

function checkHeader(header: Fields, kinds: readonly string[]): void {
  const kind = oneOf(header.type, 'interactive.header.type', kinds);
  only(header, 'interactive.header', ['type', kind]);
  if (kind === 'text') {
    text(header.text, 'interactive.header.text', INTERACTIVE_LIMITS.header);
    return;
  }
  const media = object(header[kind], `interactive.header.${kind}`);
  only(media, `interactive.header.${kind}`, ['link', 'media_id', ...(kind === 'document' ? ['filename'] : [])]);
  if ((media.link === undefined) === (media.media_id === undefined))
    throw new Refusal(`interactive.header.${kind} takes either link or media_id`);
  if (media.link !== undefined) httpsUrl(media.link, `interactive.header.${kind}.link`);
  else text(media.media_id, `interactive.header.${kind}.media_id`, 100);
  if (media.filename !== undefined) text(media.filename, `interactive.header.${kind}.filename`, 240);
}

function checkButtons(action: Fields): void {
  only(action, 'interactive.action', ['buttons']);
  const buttons = list(action.buttons, 'interactive.action.buttons', INTERACTIVE_LIMITS.buttons);
  const ids = new Set<string>();
  const titles = new Set<string>();
  buttons.forEach((item, i) => {
    const at = `interactive.action.buttons[${i}]`;
    const button = object(item, at);
    only(button, at, ['type', 'reply']);
    oneOf(button.type, `${at}.type`, ['reply']);
    const reply = object(button.reply, `${at}.reply`);
    only(reply, `${at}.reply`, ['id', 'title']);
    const id = identifier(reply.id, `${at}.reply.id`, INTERACTIVE_LIMITS.buttonId);
    const title = text(reply.title, `${at}.reply.title`, INTERACTIVE_LIMITS.buttonTitle);
    if (ids.has(id)) throw new Refusal(`${at}.reply.id repeats another button's id`);
    if (titles.has(title)) throw new Refusal(`${at}.reply.title repeats another button's title`);
    ids.add(id);
    titles.add(title);
  });
}

function checkList(action: Fields): void {
  only(action, 'interactive.action', ['button', 'sections']);
  text(action.button, 'interactive.action.button', INTERACTIVE_LIMITS.listButton);
  const sections = list(action.sections, 'interactive.action.sections', INTERACTIVE_LIMITS.sections);
  const ids = new Set<string>();
  sections.forEach((item, s) => {
    const at = `interactive.action.sections[${s}]`;
    const section = object(item, at);
    only(section, at, ['title', 'rows']);
    // The channel needs a title on each section only when there are several to tell apart.
    if (section.title !== undefined || sections.length > 1) text(section.title, `${at}.title`, INTERACTIVE_LIMITS.sectionTitle);
    list(section.rows, `${at}.rows`, INTERACTIVE_LIMITS.rows).forEach((rowItem, r) => {
      const rowAt = `${at}.rows[${r}]`;
      const row = object(rowItem, rowAt);
      only(row, rowAt, ['id', 'title', 'description']);
      const id = identifier(row.id, `${rowAt}.id`, INTERACTIVE_LIMITS.rowId);
      text(row.title, `${rowAt}.title`, INTERACTIVE_LIMITS.rowTitle);
      if (row.description !== undefined) text(row.description, `${rowAt}.description`, INTERACTIVE_LIMITS.rowDescription);
      if (ids.has(id)) throw new Refusal(`${rowAt}.id repeats another row's id`);
      ids.add(id);
    });
  });
  if (ids.size > INTERACTIVE_LIMITS.rows)
    throw new Refusal(`interactive.action.sections must have at most ${INTERACTIVE_LIMITS.rows} rows in all, not ${ids.size}`);
}

function checkCtaUrl(action: Fields): void {
  only(action, 'interactive.action', ['name', 'parameters']);
  oneOf(action.name, 'interactive.action.name', ['cta_url']);
  const parameters = object(action.parameters, 'interactive.action.parameters');
  only(parameters, 'interactive.action.parameters', ['display_text', 'url']);
  text(parameters.display_text, 'interactive.action.parameters.display_text', INTERACTIVE_LIMITS.ctaDisplayText);
  httpsUrl(parameters.url, 'interactive.action.parameters.url');
}

function checkFlow(action: Fields): void {
  only(action, 'interactive.action', ['name', 'parameters']);
  oneOf(action.name, 'interactive.action.name', ['flow']);
  const at = 'interactive.action.parameters';
  const parameters = object(action.parameters, at);
  only(parameters, at, [
    'flow_message_version',
    'flow_token',
    'flow_id',
    'flow_name',
    'flow_cta',
    'mode',
    'flow_action',
    'flow_action_payload',
  ]);
  if (parameters.flow_message_version !== undefined) oneOf(parameters.flow_message_version, `${at}.flow_message_version`, ['3']);
  if ((parameters.flow_id === undefined) === (parameters.flow_name === undefined))
    throw new Refusal(`${at} takes either flow_id or flow_name`);
  if (parameters.flow_id !== undefined) text(parameters.flow_id, `${at}.flow_id`, 100);
  else text(parameters.flow_name, `${at}.flow_name`, 200);
  text(parameters.flow_cta, `${at}.flow_cta`, INTERACTIVE_LIMITS.flowCta);
  if (EMOJI.test(parameters.flow_cta as string)) throw new Refusal(`${at}.flow_cta must not contain emoji`);
  if (parameters.flow_token !== undefined) text(parameters.flow_token, `${at}.flow_token`, 1024);
  if (parameters.mode !== undefined) oneOf(parameters.mode, `${at}.mode`, FLOW_MODES);
  const flowAction = parameters.flow_action === undefined ? 'navigate' : oneOf(parameters.flow_action, `${at}.flow_action`, FLOW_ACTIONS);
  // A navigate flow (the default) opens on the screen named here; a data_exchange flow asks its endpoint, and names none.
  if (flowAction !== 'navigate') {
    if (parameters.flow_action_payload !== undefined) throw new Refusal(`${at}.flow_action_payload goes only with flow_action navigate`);
    return;
  }
  const payload = object(parameters.flow_action_payload, `${at}.flow_action_payload`);
  only(payload, `${at}.flow_action_payload`, ['screen', 'data']);
  text(payload.screen, `${at}.flow_action_payload.screen`, 200);
  if (payload.data !== undefined && Object.keys(object(payload.data, `${at}.flow_action_payload.data`)).length === 0)
    throw new Refusal(`${at}.flow_action_payload.data must not be empty (leave it out instead)`);
}

function object(value: unknown, at: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Refusal(`${at} must be an object`);
  return value as Fields;
}

/** Fields the channel does not know make it refuse the message. */
function only(fields: Fields, at: string, known: readonly string[]): void {
  const stray = Object.keys(fields).find((key) => !known.includes(key));
  if (stray !== undefined) throw new Refusal(`${at}.${stray} is not a field the channel takes here`);
}

function oneOf<T extends string>(value: unknown, at: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw new Refusal(`${at} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function text(value: unknown, at: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Refusal(`${at} must be a non-empty string`);
  const length = [...value].length;
  if (length > max) throw new Refusal(`${at} must be at most ${max} characters, not ${length}`);
  return value;
}

/** An id the channel hands back with the customer's choice: text without surrounding spaces, which the channel refuses. */
function identifier(value: unknown, at: string, max: number): string {
  const id = text(value, at, max);
  if (id.trim() !== id) throw new Refusal(`${at} must not start or end with spaces`);
  return id;
}

function list(value: unknown, at: string, max: number): unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw new Refusal(`${at} must be a non-empty array`);
  if (value.length > max) throw new Refusal(`${at} must have at most ${max} items, not ${value.length}`);
  return value;
}

/** An https URL on a public host name, as the channel fetches or opens it (the same rule as a media link's). */
function httpsUrl(value: unknown, at: string): void {
  text(value, at, INTERACTIVE_LIMITS.url);
  if (!isURL(value as string, { protocols: ['https'], require_protocol: true })) throw new Refusal(`${at} must be an https URL`);
}

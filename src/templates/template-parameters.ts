import { parsePublicId } from '../common/ids';

/**
 * What a send of a template must fill, read from the channel's definition of it, and the check
 * of a send's `components` against it. Pure: the rules of the WhatsApp Cloud API's template
 * sends, in one place.
 *
 * Placeholders are `{{1}}`, `{{2}}`, … or, in a template whose `parameter_format` is `NAMED`,
 * `{{first_name}}`; each distinct one is one parameter. Buttons take parameters at send time as
 * follows (any other button, such as PHONE_NUMBER, takes none and no component):
 * - QUICK_REPLY: one `payload` (sub_type `quick_reply`); the component may be left out, and the
 *   customer's tap then reports the button's text;
 * - URL with a `{{1}}` in its address: one `text`, the dynamic suffix (sub_type `url`); a static
 *   URL takes none;
 * - COPY_CODE: one `coupon_code` (sub_type `copy_code`);
 * - OTP (authentication templates): one `text`, the code, sent with sub_type `url` as the channel
 *   documents;
 * - FLOW and CATALOG: one `action` (sub_type `flow`, `catalog`), may be left out; MPM: one `action`.
 * Components the check does not know (CAROUSEL, LIMITED_TIME_OFFER, …) are passed on unchecked.
 */

export type HeaderFormat = 'text' | 'image' | 'video' | 'document' | 'location';
export const HEADER_FORMATS: HeaderFormat[] = ['text', 'image', 'video', 'document', 'location'];

export interface ButtonParameters {
  /** The button's position among the template's buttons, from 0: the `index` of its send component. */
  index: number;
  /** The button's type as the definition names it, lower case: quick_reply, url, copy_code, otp, flow, phone_number, … */
  type: string;
  /** Parameters its send component carries: 0 or 1. */
  parameters: number;
}

/** What a send must fill: the `parameters` of a template in the API. */
export interface TemplateParameters {
  /** What the header takes: its media, `text` when its text has a variable, null when it takes nothing. */
  header: HeaderFormat | null;
  /** Variables of a text header. */
  header_text: number;
  /** Variables of the body. */
  body: number;
  buttons: ButtonParameters[];
}

/** The parts of a template the check reads: the channel's definition. */
export interface TemplateDefinition {
  components: unknown[];
  parameter_format: string;
}

type ParameterKind = 'payload' | 'text' | 'coupon_code' | 'action';

interface ExpectedButton {
  index: number;
  type: string;
  /** The send component's sub_type, and the one parameter it carries; null: the button takes none. */
  send: { subType: string; parameter: ParameterKind; optional: boolean } | null;
}

interface Expected {
  named: boolean;
  /** null: no header, or a text header without variables. */
  header: { format: 'text'; placeholders: string[] } | { format: Exclude<HeaderFormat, 'text'> } | null;
  body: string[];
  buttons: ExpectedButton[];
  /** Send component types passed on unchecked: components of the definition the check does not know. */
  unchecked: Set<string>;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const lower = (value: unknown): string | null => (typeof value === 'string' ? value.toLowerCase() : null);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

const POSITIONAL = /\{\{\s*(\d+)\s*\}\}/g;
const NAMED = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g;
/** Media of a header and what the send must carry for it. */
const MEDIA_FORMATS = new Set(['image', 'video', 'document']);
/** WhatsApp refuses a body or header parameter with a line break, a tab or more than four spaces in a row (error 132018). */
const REFUSED_SPACING = /[\n\r\t]| {5}/;
const MEDIA_ID = 'med';

/** The distinct placeholders of a text, in order of appearance. */
export function placeholdersIn(text: unknown, named: boolean): string[] {
  if (typeof text !== 'string') return [];
  return [...new Set([...text.matchAll(named ? NAMED : POSITIONAL)].map((match) => match[1]))];
}

function buttonSend(button: Json): ExpectedButton['send'] {
  switch (lower(button.type)) {
    case 'quick_reply':
      return { subType: 'quick_reply', parameter: 'payload', optional: true };
    case 'url':
      return /\{\{[^}]*\}\}/.test(typeof button.url === 'string' ? button.url : '')
        ? { subType: 'url', parameter: 'text', optional: false }
        : null;
    case 'copy_code':
      return { subType: 'copy_code', parameter: 'coupon_code', optional: false };
    case 'otp':
      return { subType: 'url', parameter: 'text', optional: false };
    case 'flow':
      return { subType: 'flow', parameter: 'action', optional: true };
    case 'catalog':
      return { subType: 'catalog', parameter: 'action', optional: true };
    case 'mpm':
      return { subType: 'mpm', parameter: 'action', optional: false };
    default:
      return null;
  }
}

function expectationsOf(definition: TemplateDefinition): Expected {
  const named = definition.parameter_format.toUpperCase() === 'NAMED';
  const expected: Expected = { named, header: null, body: [], buttons: [], unchecked: new Set() };
  for (const component of definition.components) {
    if (!isObject(component)) continue;
    const type = lower(component.type);
    if (type === 'header') {
      const format = lower(component.format) ?? 'text';
      if (format === 'text') {
        const placeholders = placeholdersIn(component.text, named);
        expected.header = placeholders.length > 0 ? { format: 'text', placeholders } : null;
      } else if (MEDIA_FORMATS.has(format) || format === 'location') {
        expected.header = { format: format as Exclude<HeaderFormat, 'text'> };
      } else {
        expected.unchecked.add('header');
      }
    } else if (type === 'body') {
      expected.body = placeholdersIn(component.text, named);
    } else if (type === 'buttons') {
      const buttons = Array.isArray(component.buttons) ? component.buttons : [];
      expected.buttons = buttons.map((button, index) => ({
        index,
        type: (isObject(button) ? lower(button.type) : null) ?? 'unknown',
        send: isObject(button) ? buttonSend(button) : null,
      }));
    } else if (type !== null && type !== 'footer') {
      expected.unchecked.add(type);
    }
  }
  return expected;
}

/** What a send of this template must fill, as the API lists it. */
export function parametersOf(definition: TemplateDefinition): TemplateParameters {
  const { header, body, buttons } = expectationsOf(definition);
  return {
    header: header?.format ?? null,
    header_text: header?.format === 'text' ? header.placeholders.length : 0,
    body: body.length,
    buttons: buttons.map((button) => ({ index: button.index, type: button.type, parameters: button.send ? 1 : 0 })),
  };
}

/**
 * What is wrong with a send's `components` for this template, in one sentence naming the
 * component (header, body, button N) and what it takes; null when the channel would take them.
 */
export function sendProblem(definition: TemplateDefinition, components: unknown[] | undefined): string | null {
  const expected = expectationsOf(definition);
  let header = false;
  let body = false;
  const buttons = new Set<number>();
  for (const [position, component] of (components ?? []).entries()) {
    if (!isObject(component)) return `component ${position} is not an object`;
    const type = lower(component.type);
    let problem: string | null;
    if (type === 'header') {
      if (header) return 'the header component is given twice';
      header = true;
      problem = expected.unchecked.has('header') ? null : headerProblem(expected, component);
    } else if (type === 'body') {
      if (body) return 'the body component is given twice';
      body = true;
      problem = textParametersProblem('body', expected.body, expected.named, component.parameters);
    } else if (type === 'button') {
      problem = buttonProblem(expected, component, buttons);
    } else if (type !== null && expected.unchecked.has(type)) {
      problem = null;
    } else {
      problem = `component ${position} has type ${JSON.stringify(component.type)}, which this template does not take (header, body, button)`;
    }
    if (problem) return problem;
  }
  if (!header && expected.header) {
    const { format } = expected.header;
    return format === 'text'
      ? `header takes ${plural(expected.header.placeholders.length, 'text parameter')}, got none`
      : `header takes ${format === 'image' ? 'an' : 'a'} ${format}, got none`;
  }
  if (!body && expected.body.length > 0) return `body takes ${plural(expected.body.length, 'parameter')}, got none`;
  const missing = expected.buttons.find((button) => button.send && !button.send.optional && !buttons.has(button.index));
  if (missing) return `button ${missing.index} (${missing.type}) takes 1 parameter, got none`;
  return null;
}

function headerProblem(expected: Expected, component: Json): string | null {
  const wanted = expected.header;
  if (!wanted || wanted.format === 'text')
    return textParametersProblem('header', wanted?.placeholders ?? [], expected.named, component.parameters);
  if (!Array.isArray(component.parameters)) return 'header parameters must be an array';
  const article = wanted.format === 'image' ? 'an' : 'a';
  if (component.parameters.length !== 1) return `header takes 1 ${wanted.format} parameter, got ${component.parameters.length}`;
  const parameter: unknown = component.parameters[0];
  const given = isObject(parameter) ? lower(parameter.type) : null;
  if (!isObject(parameter) || given !== wanted.format)
    return `header takes ${article} ${wanted.format}, got ${given === null ? 'a parameter without a type' : `${given === 'image' ? 'an' : 'a'} ${given}`}`;
  if (wanted.format === 'location') return locationProblem(parameter.location);
  return mediaProblem(wanted.format, parameter[wanted.format]);
}

/** A header's media: by `link` (https), by the channel's media `id`, or by one of our uploads (`media_id`: `med_…`). */
function mediaProblem(format: string, media: unknown): string | null {
  if (!isObject(media)) return `header ${format} must be an object with link, id or media_id`;
  const sources = (['link', 'id', 'media_id'] as const).filter((key) => media[key] !== undefined);
  if (sources.length !== 1) return `header ${format} takes exactly one of link, id or media_id, got ${sources.length}`;
  const value = media[sources[0]];
  if (typeof value !== 'string' || value === '') return `header ${format}.${sources[0]} must be a non-empty string`;
  if (sources[0] === 'link' && !isHttpsUrl(value)) return `header ${format}.link must be an https URL`;
  if (sources[0] === 'media_id' && parsePublicId(MEDIA_ID, value) === null)
    return `header ${format}.media_id must be the id of an upload (med_…)`;
  return null;
}

function locationProblem(location: unknown): string | null {
  const coordinate = (value: unknown) =>
    (typeof value === 'number' && Number.isFinite(value)) ||
    (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
  if (!isObject(location) || !coordinate(location.latitude) || !coordinate(location.longitude))
    return 'header location must carry a latitude and a longitude';
  return null;
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** The parameters of a body or a text header: one per placeholder, text, currency or date_time, named in a NAMED template. */
function textParametersProblem(where: 'body' | 'header', placeholders: string[], named: boolean, parameters: unknown): string | null {
  if (!Array.isArray(parameters)) return `${where} parameters must be an array`;
  const wanted = where === 'header' ? 'text parameter' : 'parameter';
  if (parameters.length !== placeholders.length)
    return placeholders.length === 0
      ? `${where} takes no parameters, got ${parameters.length}`
      : `${where} takes ${plural(placeholders.length, wanted)}, got ${parameters.length}`;
  for (const [position, parameter] of parameters.entries()) {
    const label = `${where} parameter ${position + 1}`;
    if (!isObject(parameter)) return `${label} is not an object`;
    const type = lower(parameter.type);
    if (type === 'text') {
      if (typeof parameter.text !== 'string' || parameter.text === '') return `${label} must have a non-empty text`;
      if (REFUSED_SPACING.test(parameter.text))
        return `${label} has a line break, a tab or more than four spaces in a row, which WhatsApp refuses in template parameters`;
    } else if (type === 'currency' || type === 'date_time') {
      if (!isObject(parameter[type]) || typeof parameter[type].fallback_value !== 'string')
        return `${label} must carry ${type} with a fallback_value`;
    } else {
      return `${label} has type ${JSON.stringify(parameter.type)}; a ${where} takes text, currency or date_time`;
    }
  }
  if (!named) return null;
  const given = parameters.map((parameter) => (parameter as Json).parameter_name);
  const sameNames =
    given.every((name) => typeof name === 'string') &&
    new Set(given).size === given.length &&
    placeholders.every((name) => given.includes(name));
  return sameNames
    ? null
    : `${where} takes parameters named ${placeholders.join(', ')} (parameter_name), got ${given.map(String).join(', ')}`;
}

function buttonProblem(expected: Expected, component: Json, seen: Set<number>): string | null {
  const index =
    typeof component.index === 'number'
      ? component.index
      : typeof component.index === 'string' && /^\d+$/.test(component.index)
        ? Number(component.index)
        : NaN;
  if (!Number.isSafeInteger(index)) return 'a button component needs its index: the position of the button in the template, from 0';
  const button = expected.buttons[index];
  if (!button) return `button ${index} is not in the template (it has ${plural(expected.buttons.length, 'button')})`;
  if (seen.has(index)) return `button ${index} is given twice`;
  seen.add(index);
  if (!button.send) return `button ${index} (${button.type}) takes no parameters`;
  const subType = lower(component.sub_type);
  if (subType !== button.send.subType)
    return `button ${index} is a ${button.type} button: its sub_type is ${button.send.subType}, got ${JSON.stringify(component.sub_type ?? null)}`;
  if (!Array.isArray(component.parameters)) return `button ${index} parameters must be an array`;
  if (component.parameters.length !== 1) return `button ${index} (${button.type}) takes 1 parameter, got ${component.parameters.length}`;
  const parameter: unknown = component.parameters[0];
  const kind = button.send.parameter;
  if (!isObject(parameter) || lower(parameter.type) !== kind)
    return `button ${index} (${button.type}) takes a ${kind} parameter, got ${isObject(parameter) ? JSON.stringify(parameter.type ?? null) : 'something else'}`;
  const value = parameter[kind];
  if (kind === 'action' ? !isObject(value) : typeof value !== 'string' || value === '')
    return `button ${index} (${button.type}) ${kind} must be ${kind === 'action' ? 'an object' : 'a non-empty string'}`;
  return null;
}

/** What a text, currency or date_time parameter shows the customer. */
function shownValue(parameter: unknown): string {
  if (!isObject(parameter)) return '';
  if (typeof parameter.text === 'string') return parameter.text;
  for (const kind of ['currency', 'date_time']) {
    const value = parameter[kind];
    if (isObject(value) && typeof value.fallback_value === 'string') return value.fallback_value;
  }
  return '';
}

/** A definition's text with its placeholders replaced by the send's parameters of that component (`{{1}}` by position, `{{name}}` by parameter_name). */
function filledText(text: string, named: boolean, parameters: unknown): string {
  const given = Array.isArray(parameters) ? parameters : [];
  return text.replace(named ? NAMED : POSITIONAL, (written, key: string) => {
    const parameter = named ? given.find((p) => isObject(p) && p.parameter_name === key) : given[Number(key) - 1];
    return parameter === undefined ? written : shownValue(parameter);
  });
}

/**
 * The message the customer reads (text header, body and footer, one per line), the definition's
 * texts filled with the send's parameters: a preview, e.g. of a campaign's message for a contact.
 */
export function templateTextOf(definition: TemplateDefinition, components: unknown[] | undefined): string {
  const named = definition.parameter_format.toUpperCase() === 'NAMED';
  const sent = (type: string) => (components ?? []).find((c) => isObject(c) && lower(c.type) === type) as Json | undefined;
  const lines: string[] = [];
  for (const component of definition.components) {
    if (!isObject(component) || typeof component.text !== 'string') continue;
    const type = lower(component.type);
    if (type === 'header' && (lower(component.format) ?? 'text') === 'text')
      lines.push(filledText(component.text, named, sent('header')?.parameters));
    else if (type === 'body') lines.push(filledText(component.text, named, sent('body')?.parameters));
    else if (type === 'footer') lines.push(component.text);
  }
  return lines.join('\n');
}

import { attributeKeyProblem } from '../contacts/contact-attributes';

/**
 * The per-recipient parameters of a campaign's template, pure: a parameter's text may name
 * `{{contact.name}}`, `{{contact.phone}}` or `{{contact.attributes.<key>}}`, filled from each
 * recipient's contact when its message is queued. Any string of the send's components may hold
 * them (a body or header text, a button's URL suffix or payload). A recipient without the value
 * (no name, no phone, no such attribute, or an empty one) is skipped with that reason: a message
 * with a hole in it is worse than none.
 */

/** `{{contact.…}}`, spaces allowed inside the braces as the channel allows them in its own placeholders. */
const PLACEHOLDER = /\{\{\s*contact\.([^{}\s]*)\s*\}\}/g;

/** What a placeholder reads of a contact. */
export interface FillableContact {
  name: string | null;
  phone: string | null;
  attributes: Record<string, string | number | boolean> | null;
}

type Json = unknown;

/** Every `{{contact.…}}` placeholder named anywhere in the components, distinct, in order. */
function placeholders(value: Json, found: Set<string>): Set<string> {
  if (typeof value === 'string') for (const match of value.matchAll(PLACEHOLDER)) found.add(match[1]);
  else if (Array.isArray(value)) for (const item of value) placeholders(item, found);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) placeholders(item, found);
  return found;
}

/** Why a placeholder names nothing a contact has (`{{contact.email}}`), or null when every one is fillable. */
export function placeholderProblem(components: Json): string | null {
  for (const path of placeholders(components, new Set())) {
    if (path === 'name' || path === 'phone') continue;
    if (path.startsWith('attributes.')) {
      const keyProblem = attributeKeyProblem(path.slice('attributes.'.length));
      if (keyProblem === null) continue;
      return `{{contact.${path}}}: ${keyProblem}`;
    }
    return `{{contact.${path}}} names nothing a contact has: use {{contact.name}}, {{contact.phone}} or {{contact.attributes.<key>}}`;
  }
  return null;
}

function valueOf(contact: FillableContact, path: string): string | null {
  let value: unknown;
  if (path === 'name') value = contact.name;
  else if (path === 'phone') value = contact.phone;
  else value = contact.attributes?.[path.slice('attributes.'.length)];
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}

/**
 * The components with every placeholder filled from the contact, or the first placeholder it has
 * no value for (`missing`, as written: `{{contact.attributes.city}}`).
 */
export function fillFor<T>(components: T, contact: FillableContact): { filled: T } | { missing: string } {
  let missing: string | null = null;
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string')
      return value.replace(PLACEHOLDER, (written, path: string) => {
        const found = valueOf(contact, path);
        if (found === null) missing ??= `{{contact.${path}}}`;
        return found ?? written;
      });
    if (Array.isArray(value)) return value.map(fill);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item)]));
    return value;
  };
  const filled = fill(components) as T;
  return missing === null ? { filled } : { missing };
}

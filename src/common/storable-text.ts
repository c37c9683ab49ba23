/**
 * Characters PostgreSQL cannot store: NUL (text refuses the byte 0x00, jsonb the escape `\u0000`)
 * and unpaired UTF-16 surrogates (no UTF-8 encoding exists: `pg` would write U+FFFD in a text
 * column, but jsonb refuses the escape `\ud800` that JSON.stringify writes for one). A surrogate
 * pair is one code point under the `u` flag, so `\p{Cs}` matches only unpaired halves.
 */
// eslint-disable-next-line no-control-regex -- NUL is one of the characters to find
const UNSTORABLE = /[\u0000\p{Cs}]/u;
// eslint-disable-next-line no-control-regex -- likewise
const UNSTORABLE_ALL = /[\u0000\p{Cs}]/gu;

/** What stands in for an unstorable character: the Unicode replacement character. */
export const REPLACEMENT_CHARACTER = '\uFFFD';

/**
 * The path (`name`, `template.components.0.text`) of the first string or object key in `value`
 * holding a character PostgreSQL cannot store, or null when there is none. `path` names `value`
 * itself; an offending key is reported by the path of the object that holds it.
 */
export function findUnstorable(value: unknown, path: string): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return path;
    const found = findUnstorable(item, path ? `${path}.${key}` : key);
    if (found !== null) return found;
  }
  return null;
}

/** A copy of `value` (JSON: strings, numbers, arrays, objects) with every unstorable character, in strings and keys, replaced. */
export function toStorable<T>(value: T): T {
  if (typeof value === 'string') return value.replace(UNSTORABLE_ALL, REPLACEMENT_CHARACTER) as T;
  if (Array.isArray(value)) return value.map(toStorable) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [toStorable(key), toStorable(item)])) as T;
}

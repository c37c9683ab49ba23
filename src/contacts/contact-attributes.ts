/** A custom attribute's value: what a CSV cell and a JSON scalar can both carry. */
export type AttributeValue = string | number | boolean;

/** A contact's custom attributes: at most MAX_ATTRIBUTES keys. */
export type ContactAttributes = Record<string, AttributeValue>;

export const MAX_ATTRIBUTES = 50;
export const MAX_ATTRIBUTE_KEY_LENGTH = 64;
export const MAX_ATTRIBUTE_VALUE_LENGTH = 1000;

/**
 * A key starts with a letter, then letters, digits, `_`, `-` or `.`: it is a CSV column and a
 * JSON key in every integrator's code, so it stays plain ASCII (and can never be `__proto__`).
 */
const ATTRIBUTE_KEY = new RegExp(`^[A-Za-z][A-Za-z0-9_.-]{0,${MAX_ATTRIBUTE_KEY_LENGTH - 1}}$`);

/** The contact's own fields: as CSV columns they cannot also be attributes (compared case-insensitively). */
export const CONTACT_COLUMNS = ['phone', 'name', 'email', 'tags', 'wa_user_id'] as const;

export const ATTRIBUTE_KEY_RULE = `1 to ${MAX_ATTRIBUTE_KEY_LENGTH} characters: a letter, then letters, digits, _, - or .`;
export const ATTRIBUTE_VALUE_RULE = `a string of 1 to ${MAX_ATTRIBUTE_VALUE_LENGTH} characters, a number or a boolean`;

/** Why `key` cannot name an attribute, or null when it can. */
export function attributeKeyProblem(key: string): string | null {
  if (!ATTRIBUTE_KEY.test(key)) return `attribute key ${JSON.stringify(key)} must be ${ATTRIBUTE_KEY_RULE}`;
  if ((CONTACT_COLUMNS as readonly string[]).includes(key.toLowerCase()))
    return `attribute key ${JSON.stringify(key)} is reserved: ${key.toLowerCase()} is a field of the contact`;
  return null;
}

/**
 * Whether `value` is an attribute value. Strings are never empty: in a CSV file an empty cell is
 * the absence of the attribute, so "" could not travel there and back. Numbers are finite (a JSON
 * body may spell 1e400, which parses to Infinity).
 */
export function isAttributeValue(value: unknown): value is AttributeValue {
  if (typeof value === 'string') return value.length >= 1 && value.length <= MAX_ATTRIBUTE_VALUE_LENGTH;
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'boolean';
}

/** The first reason `value` is not a valid attributes object, naming the key at fault; null when it is valid. */
export function attributesProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'attributes must be an object';
  const entries = Object.entries(value);
  if (entries.length > MAX_ATTRIBUTES) return `attributes must have at most ${MAX_ATTRIBUTES} keys, not ${entries.length}`;
  for (const [key, item] of entries) {
    const keyProblem = attributeKeyProblem(key);
    if (keyProblem) return `attributes: ${keyProblem}`;
    if (!isAttributeValue(item)) return `attributes.${key} must be ${ATTRIBUTE_VALUE_RULE}`;
  }
  return null;
}

/** The same attributes with their keys in code-point order: every answer lists them alike, whatever order they were given or stored in. */
export function sortedAttributes(attributes: ContactAttributes): ContactAttributes {
  return Object.fromEntries(
    Object.keys(attributes)
      .sort()
      .map((key) => [key, attributes[key]]),
  );
}

/** Whether two attribute objects hold the same keys and values, whatever their order. */
export function sameAttributes(a: ContactAttributes, b: ContactAttributes): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

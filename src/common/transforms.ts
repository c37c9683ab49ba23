/** class-transformer `@Transform` functions shared by the DTOs. */

/** Strings trimmed; other values left for the validators. */
export const trimmed = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** A query string's `true` and `false` as booleans; anything else stays as given, so validation refuses it. */
export const booleanWord = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);

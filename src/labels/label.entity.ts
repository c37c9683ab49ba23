/** A row of `labels`: a label admins keep in the catalogue and agents put on conversations. */
export interface LabelRow {
  id: string;
  /** Unique case-insensitively; kept as written. */
  name: string;
  /** `#rrggbb`, lowercase. */
  color: string;
  created_at: Date;
  updated_at: Date;
}

export const MAX_LABEL_NAME_LENGTH = 50;
export const DEFAULT_LABEL_COLOR = '#6b7280';

/**
 * Label names as every answer lists them: alphabetically with A–Z read as a–z, then by code point;
 * the same order on both engines whatever their collation, and the one the list's statement
 * writes (`labelOrderSql`).
 */
export function sortLabelNames(names: string[]): string[] {
  const key = (name: string) => Buffer.from(name.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()));
  return [...names].sort((a, b) => Buffer.compare(key(a), key(b)) || Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * The ORDER BY of `sortLabelNames` for a text expression: UTF-8 bytes (COLLATE "C") are code
 * points in order, and `translate` folds A–Z only, as `lower` would fold more under some ctypes.
 */
export function labelOrderSql(name: string): string {
  return `translate(${name}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE "C", ${name} COLLATE "C"`;
}

/** Whether two names name the same label (names are unique case-insensitively). */
export function sameLabelName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

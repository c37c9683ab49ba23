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

/** Label names as every answer lists them: alphabetically regardless of case, the same on both engines whatever their collation. */
export function sortLabelNames(names: string[]): string[] {
  const key = (name: string) => name.toLowerCase();
  return [...names].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

/** Whether two names name the same label (names are unique case-insensitively). */
export function sameLabelName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

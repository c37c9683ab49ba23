/** An ILIKE pattern matching `text` anywhere, with the user's % and _ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Text as the case- and accent-insensitive searches compare it: compatibility-decomposed (NFKD),
 * combining marks removed, lower-cased. `Crème Brûlée` and `creme brulee` fold alike. Stored
 * beside the text it folds and applied to the query, so a plain LIKE on the folded column (and an
 * index on it) answers the same on both engines, with no extension.
 */
export function foldForSearch(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The most words a message search takes: each is one more index condition. */
export const MAX_SEARCH_WORDS = 10;

/** The distinct folded words of a search query, in order: split on white space, empty ones dropped. */
export function searchWords(query: string): string[] {
  return [...new Set(foldForSearch(query).split(/\s+/u).filter(Boolean))];
}

/** An ILIKE/LIKE pattern matching `text` at the start, with the user's % and _ taken literally. */
export function prefixPattern(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

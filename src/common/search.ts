/** An ILIKE pattern matching `text` anywhere, with the user's % and _ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The most words a search takes: each is one more index condition. */
export const MAX_SEARCH_WORDS = 10;

/** The distinct words of a search, in order (split on white space). */
export function searchWords(q: string): string[] {
  return [...new Set(q.split(/\s+/).filter((word) => word !== ''))];
}

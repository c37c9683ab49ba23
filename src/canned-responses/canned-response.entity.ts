/** A row of `canned_responses` (without the folded copies of shortcut and text that only its search reads). */
export interface CannedResponseRow {
  id: string;
  /** Unique, compared case- and accent-insensitively. */
  shortcut: string;
  /** The text an agent sends; for an interactive one, its body. */
  text: string;
  /** An interactive message (the channel's shape, as POST …/messages takes it) sent instead of the text; null for text. */
  interactive: Record<string, unknown> | null;
  /** The user who wrote it; null once that user is deleted. */
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

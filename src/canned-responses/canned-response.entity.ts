/** A row of `canned_responses` (without the folded copies of shortcut and text that only its search reads). */
export interface CannedResponseRow {
  id: string;
  /** Unique, compared case- and accent-insensitively. */
  shortcut: string;
  text: string;
  /** The user who wrote it; null once that user is deleted. */
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

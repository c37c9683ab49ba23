/** A row of `teams`, with its members and inboxes (`team_members`, `team_inboxes`). */
export interface TeamRow {
  id: string;
  name: string;
  description: string;
  /** User uuids, sorted. */
  member_ids: string[];
  /** The inboxes whose conversations the team may be handed (inbox uuids), sorted. */
  inbox_ids: string[];
  created_at: Date;
  updated_at: Date;
}

import type { RuleAction } from './rule-logic';

export const MACRO_VISIBILITIES = ['personal', 'team'] as const;
export type MacroVisibility = (typeof MACRO_VISIBILITIES)[number];

/** A row of `macros`: actions an agent runs on one conversation at once. */
export interface MacroRow {
  id: string;
  name: string;
  /** `personal`: its owner's only; `team`: everyone's, managed by admins. */
  visibility: MacroVisibility;
  /** Who made a personal macro; null for a team macro. */
  owner_id: string | null;
  actions: RuleAction[];
  created_at: Date;
  updated_at: Date;
}

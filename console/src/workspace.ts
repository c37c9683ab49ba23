import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me, Schemas, User } from './api/client';
import type { EventStream } from './stream';

/** What every page of a signed-in user shares: who they are, the users and teams, the labels, the inboxes they see, the live stream. */
export interface Workspace {
  me: Me;
  users: User[];
  labels: Schemas['LabelResponse'][];
  /** The inboxes (WhatsApp numbers) the user sees: every one to an admin, their own to an agent. */
  inboxes: Schemas['InboxResponse'][];
  /** Every team: anyone may read them; conversations are handed to them. */
  teams: Schemas['TeamResponse'][];
  stream: EventStream;
  setMe: (me: Me) => void;
  reloadLabels: () => void;
  reloadUsers: () => void;
  reloadInboxes: () => void;
  reloadTeams: () => void;
}

export const WorkspaceContext = createContext<Workspace | null>(null);

export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error('useWorkspace outside the signed-in shell');
  return workspace;
}

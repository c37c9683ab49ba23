import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me, Schemas, User } from './api/client';
import type { EventStream } from './stream';

/** What every page of a signed-in user shares: who they are, the team, the labels, the inboxes they see, the live stream. */
export interface Workspace {
  me: Me;
  users: User[];
  labels: Schemas['LabelResponse'][];
  /** The inboxes (WhatsApp numbers) the user sees: every one to an admin, their own to an agent. */
  inboxes: Schemas['InboxResponse'][];
  stream: EventStream;
  setMe: (me: Me) => void;
  reloadLabels: () => void;
  reloadUsers: () => void;
  reloadInboxes: () => void;
}

export const WorkspaceContext = createContext<Workspace | null>(null);

export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error('useWorkspace outside the signed-in shell');
  return workspace;
}

import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me, Schemas, User } from './api/client';
import type { EventStream } from './stream';

/** What every page of a signed-in user shares: who they are, the team, the labels, the live stream. */
export interface Workspace {
  me: Me;
  users: User[];
  labels: Schemas['LabelResponse'][];
  stream: EventStream;
  setMe: (me: Me) => void;
  reloadLabels: () => void;
  reloadUsers: () => void;
}

export const WorkspaceContext = createContext<Workspace | null>(null);

export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error('useWorkspace outside the signed-in shell');
  return workspace;
}

import { useEffect, useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { rememberMe } from '../session';
import { valueOf } from '../ui';
import { useWorkspace } from '../workspace';

type Availability = Schemas['MeResponse']['availability'];
type Load = Schemas['AgentLoadResponse'];

/** Events after which someone's load may have changed. */
const LOAD_EVENTS = new Set(['conversation.assigned', 'conversation.closed', 'conversation.reopened', 'conversation.created']);

/** How long the team's view waits after an event before reading the loads again: one request for a burst, within the rate limit. */
const REREAD_AFTER_MS = 5_000;

/**
 * Every user's availability and load, kept fresh from the stream: read again (at most every few
 * seconds) after an event that may change someone's open conversations.
 */
export function useLoads(): Load[] {
  const { stream } = useWorkspace();
  const [loads, setLoads] = useState<Load[]>([]);
  useEffect(() => {
    let timer: number | undefined;
    const read = () => void api.get('/api/v1/assignment/agents').then((answer) => setLoads(answer.data));
    read();
    const stop = stream.on((event) => {
      if (!LOAD_EVENTS.has(event.type) || timer !== undefined) return;
      timer = window.setTimeout(() => {
        timer = undefined;
        read();
      }, REREAD_AFTER_MS);
    });
    // The stream's place came after the loads were read: they are read again.
    const stopResync = stream.onResync(read);
    return () => {
      stop();
      stopResync();
      window.clearTimeout(timer);
    };
  }, [stream]);
  return loads;
}

/** "4 of 6": open conversations and the capacity the router keeps to; without a capacity, the open ones alone. */
export function loadText(load: Pick<Load, 'open_conversations' | 'capacity'>): string {
  return load.capacity === null ? `${load.open_conversations} open` : `${load.open_conversations} of ${load.capacity}`;
}

export const AVAILABILITY_LABELS: Record<Availability, string> = { online: 'Online', busy: 'Busy', offline: 'Offline' };

/**
 * The header's control: one's availability, set here, and one's load beside it: the open
 * conversations assigned to one from the stream's counts (`mine`), the capacity read once (it
 * changes only when an admin changes an inbox), so the header makes no request in the background.
 */
export function AvailabilityControl() {
  const { me, setMe, stream, inboxes } = useWorkspace();
  const [capacity, setCapacity] = useState<number | null | undefined>(undefined);
  const [open, setOpen] = useState<number | null>(null);
  useEffect(() => stream.onCounts((counts) => setOpen(counts.mine)), [stream]);
  useEffect(() => {
    void api
      .get('/api/v1/assignment/agents')
      .then((answer) => setCapacity(answer.data.find((load) => load.user_id === me.id)?.capacity ?? null));
  }, [me.id, inboxes]);
  const [error, setError] = useState('');
  const choose = async (availability: Availability) => {
    setError('');
    try {
      const answer = await api.patch('/api/v1/me', { body: { availability } });
      rememberMe(answer);
      setMe(answer);
    } catch {
      setError('Not changed: try again');
    }
  };
  return (
    <span class="availability">
      <span class={`availability-dot availability-${me.availability}`} aria-hidden="true" />
      <label>
        <span class="visually-hidden">Your availability</span>
        <select value={me.availability} onChange={(event) => void choose(valueOf(event) as Availability)}>
          {(Object.keys(AVAILABILITY_LABELS) as Availability[]).map((value) => (
            <option value={value}>{AVAILABILITY_LABELS[value]}</option>
          ))}
        </select>
      </label>
      {open !== null && capacity !== undefined && (
        <span class="availability-load" title="Your open conversations, and the most the inboxes give you">
          {loadText({ open_conversations: open, capacity })}
        </span>
      )}
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </span>
  );
}

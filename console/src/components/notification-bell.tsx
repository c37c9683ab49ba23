import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { shortTime } from '../format';
import { navigate } from '../router';
import { useWorkspace } from '../workspace';

type Notification = Schemas['NotificationResponse'];

/** The bell: the unread count, live from the stream's `notification.created`, and the list. */
export function NotificationBell() {
  const { stream } = useWorkspace();
  const [unread, setUnread] = useState(0);
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<Notification[] | null>(null);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  const loadItems = () => void api.get('/api/v1/notifications', { query: { limit: 25 } }).then((page) => setItems(page.data));

  useEffect(() => {
    const read = () =>
      void api.get('/api/v1/notifications/unread-count').then(
        (answer) => setUnread(answer.unread),
        () => undefined,
      );
    read();
    const stopEvents = stream.on((event) => {
      if (event.type !== 'notification.created') return;
      setUnread((n) => n + 1);
      const { notification } = event.data;
      setItems((previous) => (previous ? [notification, ...previous] : previous));
    });
    // The stream's place came after the count was read: a notification in between is counted then.
    const stopResync = stream.onResync(() => {
      read();
      if (itemsRef.current !== null) loadItems();
    });
    return () => {
      stopEvents();
      stopResync();
    };
  }, [stream]);

  const toggle = () => {
    setOpen(!open);
    if (!open && items === null) loadItems();
  };
  const openOne = async (notification: Notification) => {
    setOpen(false);
    if (!notification.read_at) {
      setUnread((n) => Math.max(0, n - 1));
      setItems((previous) => previous?.map((n) => (n.id === notification.id ? { ...n, read_at: new Date().toISOString() } : n)) ?? null);
      void api.post('/api/v1/notifications/{id}/read', { params: { id: notification.id } }).catch(() => undefined);
    }
    if (notification.conversation_id) navigate(`/conversations/${notification.conversation_id}`);
  };
  const readAll = async () => {
    await api.post('/api/v1/notifications/read');
    setUnread(0);
    setItems((previous) => previous?.map((n) => ({ ...n, read_at: n.read_at ?? new Date().toISOString() })) ?? null);
  };

  return (
    <div class="popover-anchor">
      <button type="button" class="icon-button bell" aria-expanded={open} aria-label={`Notifications, ${unread} unread`} onClick={toggle}>
        <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
          <path
            fill="currentColor"
            d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
          />
        </svg>
        {unread > 0 && <span class="unread-badge">{unread}</span>}
      </button>
      {open && (
        <div class="popover notifications" role="region" aria-label="Notifications">
          <div class="popover-header">
            <h2>Notifications</h2>
            {unread > 0 && (
              <button type="button" class="link-button" onClick={() => void readAll()}>
                Mark all read
              </button>
            )}
          </div>
          {items === null && <p>Loading…</p>}
          {items?.length === 0 && <p>Nothing yet.</p>}
          <ul>
            {items?.map((n) => (
              <li>
                <button type="button" class={n.read_at ? 'notification' : 'notification unread'} onClick={() => void openOne(n)}>
                  <span>{n.text}</span>
                  <time dateTime={n.created_at}>{shortTime(n.created_at)}</time>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

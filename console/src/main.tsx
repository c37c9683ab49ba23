import { type ComponentType, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Me, onApiError, type Schemas, setToken, type User } from './api/client';
import { AdminAuditLog } from './admin/audit-log';
import { AdminInboxes } from './admin/inboxes';
import { AdminCannedResponses } from './admin/canned-responses';
import { AdminDeadLetters } from './admin/dead-letters';
import { AdminAutomation } from './admin/automation';
import { AdminCampaigns } from './admin/campaigns';
import { AdminLabels } from './admin/labels';
import { AdminUsers } from './admin/users';
import { AdminWebhooks } from './admin/webhooks';
import { AvailabilityControl } from './components/availability';
import { NotificationBell } from './components/notification-bell';
import { ShortcutHelp } from './components/shortcut-help';
import {
  AcceptInvitePage,
  ChoosePasswordPage,
  ForgotPasswordPage,
  LoginPage,
  ResetPasswordPage,
  SecondFactorRequiredPage,
} from './pages/auth';
import { ContactsPage } from './pages/contacts';
import { ReportsPage } from './pages/reports';
import { MacrosPage } from './pages/macros';
import { TeamsPage } from './pages/teams';
import { InboxPage } from './pages/inbox';
import { ProfilePage } from './pages/profile';
import { followLink, useLocation } from './router';
import { forgetSession, logOut, rememberMe, storedMe, storedToken } from './session';
import { EventStream, type StreamState } from './stream';
import { type Workspace, WorkspaceContext } from './workspace';
import './styles.css';

const PUBLIC_PAGES: Record<string, ComponentType> = {
  '/login': () => <LoginPage />,
  '/accept-invite': AcceptInvitePage,
  '/forgot-password': ForgotPasswordPage,
  '/reset-password': ResetPasswordPage,
};

// A request refused with 401 ends the session: the login page says so (onApiError above). The
// component that made the request may not catch its refusal; that is no error of the page.
window.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof ApiError && event.reason.status === 401) event.preventDefault();
});

function App() {
  const { path } = useLocation();
  // A stored session draws the console at once with the user as last seen (the inbox's requests go
  // out beside /me instead of after it); /me then confirms or ends it.
  const [me, setMe] = useState<Me | null>(() => (storedToken() ? storedMe() : null));
  const [checking, setChecking] = useState(() => storedToken() !== null && storedMe() === null);

  useEffect(() => {
    if (!storedToken()) return;
    api.get('/api/v1/me').then(
      (found) => {
        rememberMe(found);
        setMe(found);
        setChecking(false);
      },
      () => {
        forgetSession();
        setMe(null);
        setChecking(false);
      },
    );
  }, []);

  const [sessionEnded, setSessionEnded] = useState(false);
  useEffect(
    () =>
      onApiError((error) => {
        if (error.status !== 401) return;
        forgetSession();
        setMe(null);
        setSessionEnded(true);
      }),
    [],
  );

  const Public = PUBLIC_PAGES[path];
  if (Public) return <Public />;
  if (checking) return <p class="splash">Loading…</p>;
  if (!me)
    return (
      <LoginPage
        notice={sessionEnded ? 'Your session has ended: log in again.' : undefined}
        onLoggedIn={(found) => {
          setSessionEnded(false);
          setMe(found);
        }}
      />
    );
  if (me.password_change_required) return <ChoosePasswordPage me={me} onChanged={setMe} />;
  if (me.two_factor_required) return <SecondFactorRequiredPage me={me} onEnrolled={setMe} />;
  return <Shell me={me} setMe={setMe} path={path} />;
}

/** Which inboxes a list holds, whatever its order. */
const idsOf = (inboxes: Schemas['InboxResponse'][]) =>
  inboxes
    .map((inbox) => inbox.id)
    .sort()
    .join();

function Shell(props: { me: Me; setMe: (me: Me | null) => void; path: string }) {
  const { me, path } = props;
  const [users, setUsers] = useState<User[]>([]);
  const [labels, setLabels] = useState<Schemas['LabelResponse'][]>([]);
  const [stream] = useState(() => new EventStream(() => api.post('/api/v1/events/stream-tickets').then((answer) => answer.ticket)));
  const [streamState, setStreamState] = useState<StreamState>('connecting');
  const [limited, setLimited] = useState<ApiError | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const [usersVersion, setUsersVersion] = useState(0);
  const [labelsVersion, setLabelsVersion] = useState(0);
  const [inboxes, setInboxes] = useState<Schemas['InboxResponse'][]>([]);
  const [inboxesVersion, setInboxesVersion] = useState(0);
  const [teams, setTeams] = useState<Schemas['TeamResponse'][]>([]);
  const [teamsVersion, setTeamsVersion] = useState(0);

  const roleRef = useRef(me.role);
  roleRef.current = me.role;
  const inboxesRef = useRef(inboxes);
  inboxesRef.current = inboxes;
  useEffect(() => {
    // Back after a drop (a laptop that slept): the service may have turned the user offline meanwhile.
    // The service also ends the stream when an admin changes the user's role or inboxes; it resumes
    // after its last event, so the pages read again what they show if either changed.
    let dropped = false;
    const stop = stream.onState((state) => {
      setStreamState(state);
      if (state === 'reconnecting') dropped = true;
      if (state !== 'live' || !dropped) return;
      dropped = false;
      void Promise.allSettled([api.get('/api/v1/me'), api.get('/api/v1/inboxes', { query: { limit: 100 } })]).then(([found, seen]) => {
        if (found.status === 'fulfilled') {
          rememberMe(found.value);
          props.setMe(found.value);
        }
        if (seen.status === 'fulfilled') setInboxes(seen.value.data);
        // Either unread (a refusal, the network): read again, in doubt.
        const same =
          found.status === 'fulfilled' &&
          seen.status === 'fulfilled' &&
          found.value.role === roleRef.current &&
          idsOf(seen.value.data) === idsOf(inboxesRef.current);
        if (same) return;
        setTeamsVersion((v) => v + 1);
        stream.resync();
      });
    });
    stream.start();
    return () => {
      stop();
      stream.stop();
    };
  }, [stream]);
  useEffect(() => {
    void api.get('/api/v1/users', { query: { limit: 100 } }).then((page) => setUsers(page.data));
  }, [usersVersion]);
  useEffect(() => {
    void api.get('/api/v1/labels', { query: { limit: 100 } }).then((page) => setLabels(page.data));
  }, [labelsVersion]);
  useEffect(() => {
    void api.get('/api/v1/inboxes', { query: { limit: 100 } }).then((page) => setInboxes(page.data));
  }, [inboxesVersion]);
  useEffect(() => {
    void api.get('/api/v1/teams', { query: { limit: 100 } }).then((page) => setTeams(page.data));
  }, [teamsVersion]);
  useEffect(
    () =>
      onApiError((error) => {
        if (error.status !== 429) return;
        setLimited(error);
        window.setTimeout(() => setLimited(null), Math.max(5, error.retryAfter ?? 30) * 1000);
      }),
    [],
  );
  useEffect(() => setMenuOpen(false), [path]);

  const workspace: Workspace = {
    me,
    users,
    labels,
    inboxes,
    teams,
    stream,
    setMe: props.setMe,
    reloadLabels: () => setLabelsVersion((v) => v + 1),
    reloadUsers: () => setUsersVersion((v) => v + 1),
    reloadInboxes: () => setInboxesVersion((v) => v + 1),
    reloadTeams: () => setTeamsVersion((v) => v + 1),
  };
  const admin = me.role === 'admin';
  const link = (href: string, text: string, active: boolean) => (
    <a href={href} class={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
      {text}
    </a>
  );

  return (
    <WorkspaceContext.Provider value={workspace}>
      <div class="shell" onClick={followLink}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="topbar">
          <a href="/" class="brand">
            Team Inbox
          </a>
          <button
            type="button"
            class="icon-button menu-button"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            Menu
          </button>
          <nav id="main-nav" aria-label="Main" class={menuOpen ? 'nav open' : 'nav'}>
            {link('/', 'Inbox', path === '/' || path.startsWith('/conversations'))}
            {link('/contacts', 'Contacts', path === '/contacts')}
            {link('/reports', 'Reports', path === '/reports')}
            {link('/teams', 'Teams', path === '/teams')}
            {link('/macros', 'Macros', path === '/macros')}
            {admin && link('/admin/inboxes', 'Inboxes', path === '/admin/inboxes')}
            {admin && link('/admin/users', 'Users', path === '/admin/users')}
            {admin && link('/admin/labels', 'Labels', path === '/admin/labels')}
            {admin && link('/admin/automation', 'Automation', path === '/admin/automation')}
            {admin && link('/admin/campaigns', 'Campaigns', path === '/admin/campaigns')}
            {link('/admin/canned-responses', 'Canned responses', path === '/admin/canned-responses')}
            {admin && link('/admin/webhooks', 'Webhooks', path === '/admin/webhooks')}
            {admin && link('/admin/dead-letters', 'Dead letters', path === '/admin/dead-letters')}
            {admin && link('/admin/audit-log', 'Audit log', path === '/admin/audit-log')}
            <span class="nav-phone">{link('/profile', 'Your profile', path === '/profile')}</span>
            <button type="button" class="button secondary nav-phone" onClick={() => void logOut().finally(() => props.setMe(null))}>
              Log out
            </button>
          </nav>
          <span class={`stream-state stream-${streamState}`} role="status" title="Live updates">
            {streamState === 'live' ? 'Live' : streamState === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
          </span>
          <AvailabilityControl />
          <NotificationBell />
          <a href="/profile" class="nav-link user-link" aria-current={path === '/profile' ? 'page' : undefined}>
            {me.name}
          </a>
          <button type="button" class="button secondary logout" onClick={() => void logOut().finally(() => props.setMe(null))}>
            Log out
          </button>
        </header>
        {limited && (
          <p class="banner" role="alert">
            Too many requests: the service limits how many each user makes. Try again in {limited.retryAfter ?? 'a few'} seconds.
          </p>
        )}
        <main id="main" class="main" tabIndex={-1}>
          <Page path={path} admin={admin} />
        </main>
        <ShortcutHelp />
      </div>
    </WorkspaceContext.Provider>
  );
}

function Page(props: { path: string; admin: boolean }) {
  const { path, admin } = props;
  if (path === '/' || path.startsWith('/conversations/')) return <InboxPage />;
  if (path === '/contacts') return <ContactsPage />;
  if (path === '/reports') return <ReportsPage />;
  if (path === '/teams') return <TeamsPage />;
  if (path === '/macros') return <MacrosPage />;
  if (path === '/profile') return <ProfilePage />;
  if (path === '/admin/canned-responses') return <AdminCannedResponses />;
  if (admin && path === '/admin/inboxes') return <AdminInboxes />;
  if (admin && path === '/admin/users') return <AdminUsers />;
  if (admin && path === '/admin/labels') return <AdminLabels />;
  if (admin && path === '/admin/automation') return <AdminAutomation />;
  if (admin && path === '/admin/campaigns') return <AdminCampaigns />;
  if (admin && path === '/admin/webhooks') return <AdminWebhooks />;
  if (admin && path === '/admin/dead-letters') return <AdminDeadLetters />;
  if (admin && path === '/admin/audit-log') return <AdminAuditLog />;
  return (
    <section class="page">
      <h1>Page not found</h1>
      <p>
        <a href="/">Back to the inbox</a>
      </p>
    </section>
  );
}

// Before the first render: the pages drawn from a stored session make their requests at once.
setToken(storedToken());
render(<App />, document.getElementById('app')!);

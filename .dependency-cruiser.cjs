// dependency-cruiser configuration, used by `npm run depcheck` (scripts/check-dependencies.mjs), which adds the
// check for cycles between the top-level folders of src/ and keeps docs/architecture.md's table of FOLDERS in step.

/**
 * The top-level folders of src/ and the other folders each may import: the one statement of how the house is
 * layered. Each becomes a rule below, so an import across folders that is not listed here fails CI; and
 * docs/architecture.md shows this table (`npm run depcheck -- --write` writes it there; `npm run depcheck` fails
 * when the page differs). A new folder, or a new edge, is a line here first. Files directly in src/ (main.ts,
 * app.ts, app.module.ts, event-payload-schemas.ts: the composition root) may import anything.
 */
const FOLDERS = {
  config: { uses: [], why: 'every setting, read once and validated' },
  common: { uses: ['config'], why: 'written once, used everywhere' },
  channel: { uses: [], why: 'the port to WhatsApp (ChannelClient), provided by messaging' },
  database: { uses: ['common', 'config'], why: 'the engines, migrations, the sql helper, instances' },
  queue: { uses: ['common', 'config'], why: 'jobs and broadcasts, in process or on Redis' },
  audit: { uses: ['common', 'config', 'database'], why: 'the audit log, written in the transaction of each action it records' },
  users: { uses: ['audit', 'common', 'config', 'database', 'queue'], why: 'the team; queue: the broadcast that forgets a user' },
  auth: {
    uses: ['audit', 'common', 'config', 'database', 'queue', 'users'],
    why: 'credentials (access and API tokens, stream tickets, signed URLs), the guard, the access check',
  },
  'audit-log': { uses: ['audit', 'common', 'users'], why: "the audit log's read API for admins" },
  'two-factor': { uses: ['audit', 'auth', 'common', 'config', 'database', 'users'], why: 'TOTP enrolment, codes and recovery codes' },
  metrics: { uses: ['auth', 'common', 'config', 'database', 'queue'], why: 'the registry; database: statement times; queue: depths' },
  events: {
    uses: ['auth', 'common', 'config', 'database', 'metrics', 'queue', 'users'],
    why: 'the outbox, its relay, the stream and retention; auth, users: the stream route and its user',
  },
  'recorded-work': { uses: ['common', 'database', 'events', 'metrics', 'queue'], why: 'the one engine of work after a commit' },
  'rate-limit': { uses: ['auth', 'common', 'config'], why: 'the throttler per user, IP and login' },
  mail: { uses: ['common', 'config', 'database', 'events', 'recorded-work'], why: 'e-mail as recorded work' },
  accounts: {
    uses: ['audit', 'auth', 'common', 'config', 'database', 'events', 'mail', 'two-factor', 'users'],
    why: 'login and its lockout, invitations, resets, the profile: the account’s life, above users and auth',
  },
  labels: { uses: ['common', 'database', 'users'], why: 'the label catalogue' },
  teams: { uses: ['audit', 'common', 'database', 'users'], why: 'teams of agents and the inboxes they work' },
  reports: {
    uses: ['common', 'database', 'users'],
    why: "figures over a period, read from the facts the database keeps and the other modules' tables (users: whose inboxes a report keeps to)",
  },
  inboxes: {
    uses: ['audit', 'channel', 'common', 'config', 'database', 'messaging', 'users'],
    why: 'the WhatsApp numbers, each an inbox of conversations with its channel (messaging: the client of its account)',
  },
  'canned-responses': {
    uses: ['auth', 'channel', 'common', 'database', 'users'],
    why: "the team's saved replies (channel: the limits of an interactive one, checked like a send)",
  },
  contacts: {
    uses: ['audit', 'common', 'database', 'events', 'users'],
    why: 'the contact book, its import and export (users: the caller, whose inboxes an inbox filter keeps to)',
  },
  notifications: {
    uses: ['auth', 'common', 'config', 'database', 'events', 'mail', 'users'],
    why: "each user's notifications and their e-mails",
  },
  templates: {
    uses: ['channel', 'common', 'config', 'database', 'inboxes', 'queue', 'recorded-work', 'users'],
    why: 'the catalogues and their syncs (inboxes: which business accounts are in use, and the channel each is read through)',
  },
  media: {
    uses: ['auth', 'channel', 'common', 'config', 'database', 'inboxes', 'queue', 'recorded-work', 'users'],
    why: 'media rows and bytes, their download (channel: the download, through the receiving inbox)',
  },
  conversations: {
    uses: [
      'auth',
      'channel',
      'common',
      'config',
      'contacts',
      'database',
      'events',
      'inboxes',
      'labels',
      'media',
      'metrics',
      'notifications',
      'recorded-work',
      'teams',
      'templates',
      'users',
    ],
    why: 'conversations, messages and their sends, reactions, reads (channel: the sends and receipts)',
  },
  automation: {
    uses: [
      'audit',
      'common',
      'config',
      'contacts',
      'conversations',
      'database',
      'events',
      'inboxes',
      'labels',
      'recorded-work',
      'teams',
      'templates',
      'users',
    ],
    why: 'what an inbox does by itself (greeting and away messages, auto-resolve, the survey) and what agents automate: rules run as recorded work after the relay records their triggers, and macros, acting through the services that own what they change',
  },
  campaigns: {
    uses: [
      'audit',
      'common',
      'config',
      'contacts',
      'conversations',
      'database',
      'events',
      'inboxes',
      'recorded-work',
      'templates',
      'users',
    ],
    why: "outreach to customers: template campaigns to an audience, paced as recorded work, each recipient's outcome from its message's status (a trigger) and the customer's reply; their own opt-out (STOP, START), in the transaction of the customer's message",
  },
  assignment: {
    uses: ['common', 'config', 'conversations', 'database', 'inboxes', 'users'],
    why: 'the router: the queue handed out to available agents (conversations: the assignment and its event)',
  },
  'contact-merge': {
    uses: ['audit', 'auth', 'common', 'contacts', 'conversations', 'database', 'users'],
    why: 'the one flow over contacts and conversations',
  },
  'customer-blocking': {
    uses: ['channel', 'common', 'contacts', 'conversations', 'database', 'inboxes', 'users'],
    why: "a customer blocked on the channel (channel: its block list, of the inbox they wrote to last; conversations: the customer's 24 hours)",
  },
  inbound: {
    uses: [
      'audit',
      'auth',
      'automation',
      'campaigns',
      'common',
      'config',
      'contacts',
      'conversations',
      'database',
      'events',
      'inboxes',
      'media',
      'metrics',
      'notifications',
      'templates',
      'users',
    ],
    why: 'the channel webhook and its ingest',
  },
  messaging: {
    uses: ['channel', 'common', 'config'],
    why: 'the only code that knows the Graph API (or the sandbox): the ChannelClient (common: reading a Retry-After)',
  },
  webhooks: {
    uses: ['audit', 'common', 'config', 'database', 'events', 'metrics', 'recorded-work', 'users'],
    why: 'registrations and signed deliveries',
  },
  health: { uses: ['auth', 'common', 'config', 'inboxes'], why: 'the probes (inboxes: the channel of every active inbox)' },
  console: { uses: [], why: 'serving the built agent console' },
};

const asPattern = (name) => name.replace(/[-]/g, '\\-');
const folders = Object.keys(FOLDERS);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A file reaches itself through its imports. Under CommonJS one side of such a cycle sees the other half-initialised ' +
        '(undefined classes in Nest providers and decorators): move the shared piece to a file both can import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'folder-declared',
      severity: 'error',
      comment:
        'A top-level folder of src/ that FOLDERS in .dependency-cruiser.cjs does not declare: add it there, with what it may import.',
      from: { path: '^src/[^/]+/', pathNot: `^src/(${folders.map(asPattern).join('|')})/` },
      to: {},
    },
    ...Object.entries(FOLDERS).map(([folder, { uses }]) => ({
      name: `imports-of-${folder}`,
      severity: 'error',
      comment: `src/${folder}/ may import only ${uses.length ? uses.map((used) => `src/${used}/`).join(', ') : 'no other folder'} (FOLDERS in .dependency-cruiser.cjs): declare the edge there, or turn it around.`,
      from: { path: `^src/${asPattern(folder)}/` },
      to: { path: '^src/[^/]+/', pathNot: `^src/(${[folder, ...uses].map(asPattern).join('|')})/` },
    })),
  ],
  options: {
    // Record the imports of packages, do not cruise into them.
    doNotFollow: { path: 'node_modules' },
    // Count `import type` and imports used only as types: a cycle of types is still a cycle of design,
    // and one `import type` turned into a value import makes it a runtime cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Resolve packages' "exports" as Node does (@electric-sql/pglite/contrib/* is only reachable through them).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};

// For scripts/check-dependencies.mjs (the table in docs/architecture.md); not part of dependency-cruiser's schema.
Object.defineProperty(module.exports, 'FOLDERS', { value: FOLDERS, enumerable: false });

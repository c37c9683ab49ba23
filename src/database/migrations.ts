import { Users1763830000000 } from './migrations/1763830000000-users';
import { Inbox1763840000000 } from './migrations/1763840000000-inbox';
import { Webhooks1763850000000 } from './migrations/1763850000000-webhooks';
import { SendAttempts1763860000000 } from './migrations/1763860000000-send-attempts';
import { Retention1763880000000 } from './migrations/1763880000000-retention';

/** Every migration, in order, one per line (so branches adding one merge cleanly). Listed explicitly so the build needs no file globbing. */
export const MIGRATIONS = [
  Users1763830000000,
  Inbox1763840000000,
  Webhooks1763850000000,
  SendAttempts1763860000000,
  Retention1763880000000,
];

/** The security-relevant actions the audit log records (the API contract lists them). */
export const AUDIT_ACTIONS = [
  'login.succeeded',
  'login.failed',
  'login.locked',
  'login.unlocked',
  'logout',
  '2fa.enabled',
  '2fa.disabled',
  '2fa.reset',
  '2fa.recovery_code_used',
  'user.created',
  'user.invited',
  'user.updated',
  'user.role_changed',
  'user.deleted',
  'invitation.accepted',
  'password.changed',
  'password.reset',
  'api_token.created',
  'api_token.revoked',
  'api_token.used_from_new_address',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'contacts.exported',
  'contacts.merged',
  'contact.deleted',
  'dead_letter.replayed',
  'inbox.created',
  'inbox.updated',
  'inbox.deleted',
  'inbox.members_changed',
  'team.created',
  'team.updated',
  'team.deleted',
  'rule.created',
  'rule.updated',
  'rule.deleted',
  'campaign.created',
  'campaign.updated',
  'campaign.scheduled',
  'campaign.paused',
  'campaign.resumed',
  'campaign.cancelled',
  'campaign.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A row of `audit_log`: written in the transaction of the action, never changed. */
export interface AuditEntryRow {
  id: string;
  at: Date;
  /** The acting user's uuid; null when nobody was signed in (a failed login) or the user was deleted since. */
  actor_id: string | null;
  /** The acting user's e-mail at the time. */
  actor: string | null;
  ip: string | null;
  action: AuditAction;
  /** The public id of what the action was done to (`user_…`, `wh_…`, `tok_…`), if anything. */
  target: string | null;
  details: Record<string, unknown>;
}

export type UserRole = 'admin' | 'agent';
export const USER_ROLES: UserRole[] = ['admin', 'agent'];

/** `invited`: created without a password, waiting for the invitation to be accepted; cannot log in until then. */
export type UserStatus = 'active' | 'invited';
export const USER_STATUSES: UserStatus[] = ['active', 'invited'];

/** Which notifications reach the user by e-mail: none, each one still unread after EMAIL_NOTIFICATION_DELAY, or an hourly digest. */
export type EmailNotifications = 'off' | 'immediate' | 'digest';
export const EMAIL_NOTIFICATION_CHOICES: EmailNotifications[] = ['off', 'immediate', 'digest'];

/** A row of `users`. */
export interface UserRow {
  id: string;
  /** Stored lower-cased; unique. */
  email: string;
  name: string;
  role: UserRole;
  /** Null while invited. */
  password_hash: string | null;
  beta_access: boolean;
  /** Bumped to revoke every token issued before (logout, password change). */
  token_version: number;
  status: UserStatus;
  email_notifications: EmailNotifications;
  created_at: Date;
  updated_at: Date;
}

export type UserRole = 'admin' | 'agent';
export const USER_ROLES: UserRole[] = ['admin', 'agent'];

/** A row of `users`. */
export interface UserRow {
  id: string;
  /** Stored lower-cased; unique. */
  email: string;
  name: string;
  role: UserRole;
  password_hash: string;
  beta_access: boolean;
  /** Bumped to revoke every token issued before (logout, password change). */
  token_version: number;
  created_at: Date;
  updated_at: Date;
}

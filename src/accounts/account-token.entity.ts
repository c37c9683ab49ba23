export type AccountTokenPurpose = 'invitation' | 'password_reset';

/**
 * A row of `account_tokens`: a single-use link e-mailed to a user. Only the token's SHA-256 is
 * kept (the token is 256 random bits: a fast hash is enough, and a stolen table opens nothing).
 * The link works while unused and unexpired, and only for the address it was sent to; a reset
 * link also only while the user's token generation is the one it was issued in, so any password
 * change or logout since ends it.
 */
export interface AccountTokenRow {
  id: string;
  user_id: string;
  purpose: AccountTokenPurpose;
  token_hash: string;
  sent_to: string;
  token_version: number;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

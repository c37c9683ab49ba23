/** A row of `api_tokens`: a bearer credential for an integration, acting as its owner. */
export interface ApiTokenRow {
  id: string;
  user_id: string;
  name: string;
  /** SHA-256 of the secret: the secret itself is shown once and never stored. */
  token_hash: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  last_used_ip: string | null;
}

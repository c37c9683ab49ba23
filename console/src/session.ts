import { api, type Me, setToken } from './api/client';

const KEY = 'team-inbox.session';

interface Stored {
  token: string;
  expires_at: string;
  /** The user as last seen, so a reload draws the console at once while /me confirms it. */
  me?: Me;
}

function read(): Stored | null {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Stored | null;
    if (stored && Date.parse(stored.expires_at) > Date.now()) return stored;
  } catch {
    // A damaged entry is no session.
  }
  localStorage.removeItem(KEY);
  return null;
}

/** The token kept across reloads (this browser's local storage), until it expires or the user logs out. */
export function storedToken(): string | null {
  return read()?.token ?? null;
}

/** The user kept with the token, as last seen. */
export function storedMe(): Me | null {
  return read()?.me ?? null;
}

/** Keeps the user with the session, after /me answered. */
export function rememberMe(me: Me): void {
  const stored = read();
  if (stored) localStorage.setItem(KEY, JSON.stringify({ ...stored, me } satisfies Stored));
}

export function keepSession(token: string, expiresAt: string): void {
  localStorage.setItem(KEY, JSON.stringify({ token, expires_at: expiresAt } satisfies Stored));
  setToken(token);
}

export function forgetSession(): void {
  localStorage.removeItem(KEY);
  setToken(null);
}

/** The password step: signed in, or a second factor asked for (the user has two-factor login). */
export async function logIn(email: string, password: string): Promise<Me | { mfaToken: string }> {
  const answer = await api.post('/api/v1/auth/login', { body: { email, password } });
  if ('mfa_required' in answer) return { mfaToken: answer.mfa_token };
  return signedIn(answer.token, answer.expires_at);
}

/** The second step: a code of the authenticator app, or a recovery code. */
export async function logInWithCode(mfaToken: string, code: string): Promise<Me> {
  const answer = await api.post('/api/v1/auth/login/mfa', { body: { mfa_token: mfaToken, code } });
  return signedIn(answer.token, answer.expires_at);
}

async function signedIn(token: string, expiresAt: string): Promise<Me> {
  keepSession(token, expiresAt);
  const me = await api.get('/api/v1/me');
  rememberMe(me);
  return me;
}

export async function logOut(): Promise<void> {
  try {
    await api.post('/api/v1/auth/logout');
  } finally {
    forgetSession();
  }
}

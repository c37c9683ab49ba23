import { api, type Me, setToken } from './api/client';

const KEY = 'team-inbox.session';

interface Stored {
  token: string;
  expires_at: string;
}

/** The token kept across reloads (this browser's local storage), until it expires or the user logs out. */
export function storedToken(): string | null {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Stored | null;
    if (stored && Date.parse(stored.expires_at) > Date.now()) return stored.token;
  } catch {
    // A damaged entry is no session.
  }
  localStorage.removeItem(KEY);
  return null;
}

export function keepSession(token: string, expiresAt: string): void {
  localStorage.setItem(KEY, JSON.stringify({ token, expires_at: expiresAt } satisfies Stored));
  setToken(token);
}

export function forgetSession(): void {
  localStorage.removeItem(KEY);
  setToken(null);
}

export async function logIn(email: string, password: string): Promise<Me> {
  const answer = await api.post('/api/v1/auth/login', { body: { email, password } });
  keepSession(answer.token, answer.expires_at);
  return api.get('/api/v1/me');
}

export async function logOut(): Promise<void> {
  try {
    await api.post('/api/v1/auth/logout');
  } finally {
    forgetSession();
  }
}

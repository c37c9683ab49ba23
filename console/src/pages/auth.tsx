import { useState } from 'preact/hooks';
import { api, type Me } from '../api/client';
import { goAfterLogin, navigate, useLocation } from '../router';
import { keepSession, logIn } from '../session';
import { ErrorNote, Field, useAction, valueOf } from '../ui';

function AuthFrame(props: { title: string; children: preact.ComponentChildren }) {
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand">Team Inbox</p>
        <h1>{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}

export function LoginPage(props: { onLoggedIn?: (me: Me) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useAction(async () => {
    const me = await logIn(email.trim(), password);
    if (props.onLoggedIn) {
      props.onLoggedIn(me);
      if (location.pathname === '/login') navigate('/', true);
    } else {
      // On /login itself: reload into the signed-in shell.
      goAfterLogin();
      location.reload();
    }
  });
  return (
    <AuthFrame title="Log in">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void login.run();
        }}
      >
        <Field label="E-mail">
          <input type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(valueOf(e))} />
        </Field>
        <Field label="Password">
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(valueOf(e))}
          />
        </Field>
        <ErrorNote error={login.error} />
        <button type="submit" class="button" disabled={login.pending}>
          {login.pending ? 'Logging in…' : 'Log in'}
        </button>
      </form>
      <p>
        <a href="/forgot-password">Forgot your password?</a>
      </p>
    </AuthFrame>
  );
}

export function AcceptInvitePage() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const accept = useAction(async () => {
    const answer = await api.post('/api/v1/auth/accept-invite', {
      body: { token, password, ...(name.trim() ? { name: name.trim() } : {}) },
    });
    // Accepting answers like login: the new agent is signed in.
    keepSession(answer.token, answer.expires_at);
    location.assign('/');
  });
  return (
    <AuthFrame title="Join your team">
      {!token ? (
        <p class="error" role="alert">
          This link has no invitation in it: open the link of your invitation e-mail again.
        </p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void accept.run();
          }}
        >
          <p>Choose your password to accept the invitation.</p>
          <Field label="Your name" hint="Leave empty to keep the name you were invited with">
            <input type="text" name="name" autoComplete="name" value={name} onInput={(e) => setName(valueOf(e))} />
          </Field>
          <Field label="Password" hint="At least 8 characters">
            <input
              type="password"
              name="password"
              autoComplete="new-password"
              required
              minLength={8}
              value={password}
              onInput={(e) => setPassword(valueOf(e))}
            />
          </Field>
          <ErrorNote error={accept.error} />
          <button type="submit" class="button" disabled={accept.pending}>
            Accept the invitation
          </button>
        </form>
      )}
    </AuthFrame>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const ask = useAction(async () => {
    await api.post('/api/v1/auth/forgot-password', { body: { email: email.trim() } });
    setSent(true);
  });
  return (
    <AuthFrame title="Reset your password">
      {sent ? (
        <p role="status">If an account has this e-mail, a link to reset its password is on its way. It is valid for an hour.</p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void ask.run();
          }}
        >
          <Field label="E-mail">
            <input type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(valueOf(e))} />
          </Field>
          <ErrorNote error={ask.error} />
          <button type="submit" class="button" disabled={ask.pending}>
            Send the link
          </button>
        </form>
      )}
      <p>
        <a href="/login">Back to log in</a>
      </p>
    </AuthFrame>
  );
}

export function ResetPasswordPage() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const reset = useAction(async () => {
    await api.post('/api/v1/auth/reset-password', { body: { token, password } });
    setDone(true);
  });
  return (
    <AuthFrame title="Choose a new password">
      {done ? (
        <p role="status">
          Your password is changed. <a href="/login">Log in</a>
        </p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void reset.run();
          }}
        >
          <Field label="New password" hint="At least 8 characters">
            <input
              type="password"
              name="password"
              autoComplete="new-password"
              required
              minLength={8}
              value={password}
              onInput={(e) => setPassword(valueOf(e))}
            />
          </Field>
          <ErrorNote error={reset.error} />
          <button type="submit" class="button" disabled={reset.pending || !token}>
            Change the password
          </button>
        </form>
      )}
    </AuthFrame>
  );
}

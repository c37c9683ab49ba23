import { useState } from 'preact/hooks';
import { api, type Me } from '../api/client';
import { goAfterLogin, navigate, useLocation } from '../router';
import { keepSession, logIn, logInWithCode, rememberMe } from '../session';
import { ErrorNote, Field, useAction, valueOf } from '../ui';
import { TwoFactorEnrolment } from './two-factor';

/** A password being chosen, as the API takes it (8 characters at least), marked new for password managers. */
function NewPasswordField(props: { label: string; value: string; onInput: (value: string) => void }) {
  return (
    <Field label={props.label} hint="At least 8 characters">
      <input
        type="password"
        name="password"
        autoComplete="new-password"
        required
        minLength={8}
        value={props.value}
        onInput={(e) => props.onInput(valueOf(e))}
      />
    </Field>
  );
}

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

export function LoginPage(props: { onLoggedIn?: (me: Me) => void; notice?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const enter = (me: Me) => {
    if (props.onLoggedIn) {
      props.onLoggedIn(me);
      if (location.pathname === '/login') navigate('/', true);
    } else {
      // On /login itself: reload into the signed-in shell.
      goAfterLogin();
      location.reload();
    }
  };
  const login = useAction(async () => {
    const step = await logIn(email.trim(), password);
    if ('mfaToken' in step) setMfaToken(step.mfaToken);
    else enter(step);
  });
  const second = useAction(async () => enter(await logInWithCode(mfaToken!, code.trim())));
  if (mfaToken !== null) {
    return (
      <AuthFrame title="Two-factor login">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void second.run();
          }}
        >
          <Field label="Code" hint="The 6 digits your authenticator app shows, or one of your recovery codes">
            <input
              name="code"
              autoComplete="one-time-code"
              inputMode="text"
              required
              maxLength={32}
              value={code}
              onInput={(e) => setCode(valueOf(e))}
            />
          </Field>
          <ErrorNote error={second.error} />
          <button type="submit" class="button" disabled={second.pending}>
            {second.pending ? 'Checking…' : 'Continue'}
          </button>
          <button type="button" class="button secondary" onClick={() => setMfaToken(null)}>
            Back
          </button>
        </form>
      </AuthFrame>
    );
  }
  return (
    <AuthFrame title="Log in">
      {props.notice && (
        <p class="banner" role="status">
          {props.notice}
        </p>
      )}
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
          <NewPasswordField label="Password" value={password} onInput={setPassword} />
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
          <NewPasswordField label="New password" value={password} onInput={setPassword} />
          <ErrorNote error={reset.error} />
          <button type="submit" class="button" disabled={reset.pending || !token}>
            Change the password
          </button>
        </form>
      )}
    </AuthFrame>
  );
}

/**
 * The first login with a password the service generated (printed at start and kept in
 * DATA_DIR/admin-password.txt): a new one is chosen before anything else.
 */
export function ChoosePasswordPage(props: { me: Me; onChanged: (me: Me) => void }) {
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useAction(async () => {
    const answer = await api.patch('/api/v1/me', { body: { password, current_password: current } });
    // The new password revoked every earlier token; the answer carries the new one.
    if (answer.token && answer.expires_at) keepSession(answer.token, answer.expires_at);
    rememberMe(answer);
    props.onChanged(answer);
  });
  return (
    <AuthFrame title="Choose your password">
      <p>
        You logged in as {props.me.email} with the password Team Inbox generated at its first start. Choose your own to go on; the generated
        one stops working.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setMismatch(password !== repeated);
          if (password === repeated) void change.run();
        }}
      >
        <Field label="Generated password">
          <input type="password" autoComplete="current-password" required value={current} onInput={(e) => setCurrent(valueOf(e))} />
        </Field>
        <NewPasswordField label="New password" value={password} onInput={setPassword} />
        <Field label="New password again">
          <input type="password" autoComplete="new-password" required value={repeated} onInput={(e) => setRepeated(valueOf(e))} />
        </Field>
        {mismatch && (
          <p class="error" role="alert">
            The two new passwords differ.
          </p>
        )}
        <ErrorNote error={change.error} />
        <button type="submit" class="button" disabled={change.pending}>
          {change.pending ? 'Saving…' : 'Save and continue'}
        </button>
      </form>
    </AuthFrame>
  );
}

/** REQUIRE_2FA covers the user and they have no second factor yet: enrolment is all they can do. */
export function SecondFactorRequiredPage(props: { me: Me; onEnrolled: (me: Me) => void }) {
  return (
    <AuthFrame title="Set up two-factor login">
      <p>Your team requires two-factor login for {props.me.email}. Set it up to go on.</p>
      <TwoFactorEnrolment onDone={props.onEnrolled} />
    </AuthFrame>
  );
}

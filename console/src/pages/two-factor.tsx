import QRCode from 'qrcode';
import { useState } from 'preact/hooks';
import { api, type Me } from '../api/client';
import { keepSession } from '../session';
import { ErrorNote, Field, useAction, valueOf } from '../ui';

/**
 * Enrolment in two-factor login: the password, then the secret as a QR code (drawn by the qrcode
 * library) and as text, a first code, then the recovery codes, shown once.
 */
export function TwoFactorEnrolment(props: { onDone: (me: Me) => void }) {
  const [password, setPassword] = useState('');
  const [secret, setSecret] = useState<{ secret: string; qr: string } | null>(null);
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const begin = useAction(async () => {
    const answer = await api.post('/api/v1/me/2fa', { body: { password } });
    const svg = await QRCode.toString(answer.otpauth_url, { type: 'svg', margin: 1 });
    setSecret({ secret: answer.secret, qr: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` });
    setPassword('');
  });
  const enable = useAction(async () => {
    const answer = await api.post('/api/v1/me/2fa/enable', { body: { code: code.trim() } });
    // Turning it on revoked every earlier token, this session's included: the answer carries the new one.
    keepSession(answer.token, answer.expires_at);
    setRecoveryCodes(answer.recovery_codes);
  });
  const done = useAction(async () => props.onDone(await api.get('/api/v1/me')));

  if (recoveryCodes) {
    return (
      <div class="two-factor">
        <p role="status">
          Two-factor login is on. Keep these recovery codes somewhere safe: each one signs you in once without your phone. They are not
          shown again.
        </p>
        <ul class="recovery-codes" aria-label="Recovery codes">
          {recoveryCodes.map((recovery) => (
            <li>
              <code>{recovery}</code>
            </li>
          ))}
        </ul>
        <ErrorNote error={done.error} />
        <button type="button" class="button" onClick={() => void done.run()}>
          I have saved them
        </button>
      </div>
    );
  }
  if (secret) {
    return (
      <form
        class="two-factor"
        onSubmit={(event) => {
          event.preventDefault();
          void enable.run();
        }}
      >
        <p>Scan this code with an authenticator app (such as 1Password, Google Authenticator or Aegis), then type the 6 digits it shows.</p>
        <img class="qr" src={secret.qr} alt="QR code of the two-factor secret" width={200} height={200} />
        <p class="muted">
          Cannot scan? Type this key instead: <code class="secret">{secret.secret}</code>
        </p>
        <Field label="Code from the app">
          <input
            name="code"
            autoComplete="one-time-code"
            inputMode="numeric"
            required
            maxLength={6}
            value={code}
            onInput={(e) => setCode(valueOf(e))}
          />
        </Field>
        <ErrorNote error={enable.error} />
        <button type="submit" class="button" disabled={enable.pending}>
          Turn on
        </button>
      </form>
    );
  }
  return (
    <form
      class="two-factor"
      onSubmit={(event) => {
        event.preventDefault();
        void begin.run();
      }}
    >
      <p>Two-factor login asks for a code from your phone after the password, so a stolen password alone does not get in.</p>
      <Field label="Your password">
        <input type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(valueOf(e))} />
      </Field>
      <ErrorNote error={begin.error} />
      <button type="submit" class="button" disabled={begin.pending}>
        Set up two-factor login
      </button>
    </form>
  );
}

/** The profile's part: enrolment, or turning it off with a code. */
export function TwoFactorSection(props: { me: Me; onChanged: (me: Me) => void }) {
  const [code, setCode] = useState('');
  const disable = useAction(async () => {
    await api.delete('/api/v1/me/2fa', { body: { code: code.trim() } });
    setCode('');
    props.onChanged(await api.get('/api/v1/me'));
  });
  return (
    <section aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor login</h2>
      {props.me.two_factor_enabled ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void disable.run();
          }}
        >
          <p role="status">Two-factor login is on.</p>
          <Field label="Code to turn it off" hint="From your authenticator app, or a recovery code">
            <input name="code" autoComplete="one-time-code" required maxLength={32} value={code} onInput={(e) => setCode(valueOf(e))} />
          </Field>
          <ErrorNote error={disable.error} />
          <button type="submit" class="button secondary" disabled={disable.pending}>
            Turn off two-factor login
          </button>
        </form>
      ) : (
        <TwoFactorEnrolment onDone={props.onChanged} />
      )}
    </section>
  );
}

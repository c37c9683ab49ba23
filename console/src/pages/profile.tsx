import { useState } from 'preact/hooks';
import { api } from '../api/client';
import { keepSession, rememberMe } from '../session';
import { ErrorNote, Field, PageHeader, useAction, valueOf } from '../ui';
import { useWorkspace } from '../workspace';
import { ApiTokensSection } from './api-tokens';
import { TwoFactorSection } from './two-factor';

export function ProfilePage() {
  const { me, setMe, users } = useWorkspace();
  const [name, setName] = useState(me.name);
  const [preference, setPreference] = useState(me.email_notifications);
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [saved, setSaved] = useState('');
  const save = useAction(async () => {
    const answer = await api.patch('/api/v1/me', {
      body: { name: name.trim(), email_notifications: preference, ...(password ? { password, current_password: current } : {}) },
    });
    // A new password revokes the old tokens; the answer carries the new one.
    if (answer.token && answer.expires_at) keepSession(answer.token, answer.expires_at);
    rememberMe(answer);
    setMe(answer);
    setCurrent('');
    setPassword('');
    setSaved('Saved.');
  });
  return (
    <section class="page narrow">
      <PageHeader title="Your profile" />
      <p class="muted">
        {me.email} · {me.role}
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setSaved('');
          void save.run();
        }}
      >
        <Field label="Name">
          <input type="text" required value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="E-mail notifications">
          <select value={preference} onChange={(e) => setPreference(valueOf(e) as typeof preference)}>
            <option value="immediate">Right away</option>
            <option value="digest">A digest</option>
            <option value="off">Off</option>
          </select>
        </Field>
        <fieldset>
          <legend>Change the password</legend>
          <Field label="Current password">
            <input type="password" autoComplete="current-password" value={current} onInput={(e) => setCurrent(valueOf(e))} />
          </Field>
          <Field label="New password" hint="At least 8 characters; leave empty to keep the current one">
            <input type="password" autoComplete="new-password" minLength={8} value={password} onInput={(e) => setPassword(valueOf(e))} />
          </Field>
        </fieldset>
        <ErrorNote error={save.error} />
        <p role="status">{saved}</p>
        <button type="submit" class="button" disabled={save.pending}>
          Save
        </button>
      </form>
      <TwoFactorSection
        me={me}
        onChanged={(changed) => {
          rememberMe(changed);
          setMe(changed);
        }}
      />
      <ApiTokensSection me={me} userName={(id) => users.find((user) => user.id === id)?.name ?? id} />
    </section>
  );
}

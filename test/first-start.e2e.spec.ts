import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, TestApp } from './support/test-app';

/** A first start without ADMIN_EMAIL and ADMIN_PASSWORD, as `npm start` on a fresh clone. */
async function firstStart(): Promise<{ t: TestApp; file: string; close(): Promise<void> }> {
  const t = await startTestApp({ env: { ADMIN_EMAIL: '', ADMIN_PASSWORD: '' } });
  return { t, file: join(t.config.dataDir, 'admin-password.txt'), close: () => t.close() };
}

const passwordIn = (file: string) => readFileSync(file, 'utf8').split('\n')[1];

describe('the first start without ADMIN_EMAIL and ADMIN_PASSWORD', () => {
  it('makes admin@localhost with a generated password kept in DATA_DIR/admin-password.txt, readable by its owner only', async () => {
    const { t, file, close } = await firstStart();
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const [email, password] = readFileSync(file, 'utf8').split('\n');
      expect(email).toBe('admin@localhost');
      expect(password).toMatch(/^[\w-]{16}$/);
      const token = await t.login(email, password);
      expect((await t.request('GET', '/api/v1/me', { token })).body).toMatchObject({
        email,
        role: 'admin',
        password_change_required: true,
      });
      expect(t.logs.find((line) => /an admin was created/.test(String(line.msg)))?.msg).toBe(
        `No user existed, so an admin was created: admin@localhost, its one-time password in ${file}`,
      );
    } finally {
      await close();
    }
  });

  it('deletes the file and stops asking for a new password once the admin chooses one', async () => {
    const { t, file, close } = await firstStart();
    try {
      const token = await t.login('admin@localhost', passwordIn(file));
      const changed = await t.request('PATCH', '/api/v1/me', {
        token,
        body: { password: 'my-own-password-1', current_password: passwordIn(file) },
      });
      expect(changed.status).toBe(200);
      expect(changed.body.password_change_required).toBe(false);
      expect(existsSync(file)).toBe(false);
      const fresh = await t.login('admin@localhost', 'my-own-password-1');
      expect((await t.request('GET', '/api/v1/me', { token: fresh })).body.password_change_required).toBe(false);
    } finally {
      await close();
    }
  });

  it('writes no file and asks nothing of an admin whose password was set in ADMIN_PASSWORD', async () => {
    const t = await startTestApp();
    try {
      expect(existsSync(join(t.config.dataDir, 'admin-password.txt'))).toBe(false);
      expect((await t.request('GET', '/api/v1/me', { token: await t.adminToken() })).body.password_change_required).toBe(false);
    } finally {
      await t.close();
    }
  });
});

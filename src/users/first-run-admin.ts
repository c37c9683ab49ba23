import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file beside the embedded database that holds the generated first admin's password until it is changed. */
export const ADMIN_PASSWORD_FILE = 'admin-password.txt';

/** The admin the service made on its first start, with no ADMIN_EMAIL and ADMIN_PASSWORD set. */
export interface FirstRunAdmin {
  email: string;
  password: string;
  /** Where the password is kept until it is changed. */
  file: string;
}

/**
 * Keeps the generated password where a newcomer finds it after the log has scrolled away:
 * `<DATA_DIR>/admin-password.txt`, readable by the owner only, and gone once the password changes.
 */
export class AdminPasswordFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, ADMIN_PASSWORD_FILE);
  }

  write(email: string, password: string): FirstRunAdmin {
    mkdirSync(join(this.path, '..'), { recursive: true });
    writeFileSync(
      this.path,
      `${email}\n${password}\n\nThe first admin of this Team Inbox, made because ADMIN_EMAIL and ADMIN_PASSWORD were not set.\n` +
        'Log in with it; the console asks for a new password, and this file is deleted when the password changes.\n',
      { mode: 0o600 },
    );
    // The mode given to writeFileSync applies only to a new file.
    chmodSync(this.path, 0o600);
    return { email, password, file: this.path };
  }

  /** Deletes the file when it holds the password of this address (the password just changed). */
  forget(email: string): void {
    let holder: string;
    try {
      holder = readFileSync(this.path, 'utf8').split('\n')[0];
    } catch {
      return;
    }
    if (holder === email) rmSync(this.path, { force: true });
  }
}

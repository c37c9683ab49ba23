import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A development secret kept in a file (mode 0600): its text, made and written first when the file
 * is absent. Written whole under another name, then linked, so of two processes starting together
 * one link wins and both read the same complete value.
 */
export function readOrCreateSecretFile(file: string, make: () => string): string {
  mkdirSync(resolve(file, '..'), { recursive: true });
  const draft = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(draft, `${make()}\n`, { mode: 0o600 });
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return readFileSync(file, 'utf8').trim();
}

import { existsSync } from 'node:fs';

/** Debian's Chromium, which the browser tests drive (`.ci/run` installs it when it is missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Every setting name that loadConfig reads, taken from its source so a new one cannot be missed. */
const settings = [...read('src/config/app-config.ts').matchAll(/read\.\w+\('([A-Z0-9_]+)'/g)].map((m) => m[1]);

describe('settings documentation', () => {
  it('finds the settings in the config source', () => {
    expect(settings).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'SESSION_SECRET', 'WEBHOOK_RETRY_SCHEDULE']));
  });

  it.each(settings)('lists %s in .env.example', (name) => {
    expect(read('.env.example')).toMatch(new RegExp(`^${name}=`, 'm'));
  });

  it.each(settings)('describes %s in the configuration table of docs/configuration.md', (name) => {
    expect(read('docs/configuration.md')).toMatch(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
  });
});

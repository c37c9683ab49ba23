import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The rules of .dependency-cruiser.cjs (its FOLDERS), run by `npm run depcheck` in CI, on a small
 * tree of folders named as src/'s (plain CommonJS: the rules read paths, not languages): each case
 * is one import, and the rules it breaks.
 */
const CONFIG = join(__dirname, '..', '..', '.dependency-cruiser.cjs');

async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'depcheck-'));
  try {
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    // dependency-cruiser ships ES modules only: loaded as Node loads them, not through the test transform.
    const load = new Function('specifier', 'return import(specifier)') as (
      specifier: string,
    ) => Promise<typeof import('dependency-cruiser')>;
    const { cruise } = await load('dependency-cruiser');
    const { forbidden } = (await import(CONFIG)) as { forbidden: unknown[] };
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const { output } = await cruise(['src'], { validate: true, ruleSet: { forbidden } as never, outputType: 'json' });
      const result = (typeof output === 'string' ? JSON.parse(output) : output) as {
        summary: { violations: { rule: { name: string }; from: string; to: string }[] };
      };
      return result.summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} -> ${to}`).sort();
    } finally {
      process.chdir(cwd);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('the folder rules of .dependency-cruiser.cjs', () => {
  it('allows an import the FOLDERS table declares (conversations -> contacts)', async () => {
    expect(
      await violationsOf({
        'src/contacts/contact.js': 'exports.contact = 1;\n',
        'src/conversations/conversation.js': "exports.conversation = require('../contacts/contact.js').contact;\n",
      }),
    ).toEqual([]);
  });

  it('fails an import across folders that FOLDERS does not declare (contacts -> conversations)', async () => {
    expect(
      await violationsOf({
        'src/conversations/conversation.js': 'exports.conversation = 1;\n',
        'src/contacts/contact.js': "exports.contact = require('../conversations/conversation.js').conversation;\n",
      }),
    ).toEqual(['imports-of-contacts: src/contacts/contact.js -> src/conversations/conversation.js']);
  });

  it('fails a folder that FOLDERS does not declare', async () => {
    expect(
      await violationsOf({
        'src/common/ids.js': 'exports.id = 1;\n',
        'src/forecasts/forecast.js': "exports.forecast = require('../common/ids.js').id;\n",
      }),
    ).toEqual(['folder-declared: src/forecasts/forecast.js -> src/common/ids.js']);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EVENT_TYPES } from '../../src/events/event-types';

const root = join(__dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The relative link targets of a Markdown page (no scheme, no bare anchor), without their anchor. */
function relativeLinks(page: string): string[] {
  const text = readFileSync(join(root, page), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
    .map((target) => target.replace(/#.*$/, ''));
}

describe('documentation', () => {
  it('finds the pages and their links', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/configuration.md', 'docs/architecture.md']));
    expect(relativeLinks('README.md')).toEqual(expect.arrayContaining(['docs/api.md', 'docs/webhooks.md', 'docs/operations.md']));
  });

  it.each(pages)('%s links only to files that exist', (page) => {
    const missing = relativeLinks(page).filter((target) => !existsSync(join(root, dirname(page), target)));
    expect(missing).toEqual([]);
  });

  it.each(EVENT_TYPES)('describes the payload of %s in docs/api.md', (type) => {
    expect(readFileSync(join(root, 'docs/api.md'), 'utf8')).toContain(`\`${type}\``);
  });
});

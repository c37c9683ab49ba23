import { join, relative } from 'node:path';
import { compileCases } from '../support/compile-cases';

/**
 * A test reads an answer's body as the service's OpenAPI document describes it: these cases are
 * compiled with the tests' own request helper and each one's errors read.
 */
const ROOT = join(__dirname, '..', '..');

const CASES = {
  documentedField: `const name: string = (await t.request('GET', \`/api/v1/conversations/\${id}\`)).body.customer.name;`,
  undocumentedField: `void (await t.request('GET', \`/api/v1/conversations/\${id}\`)).body.customer_name;`,
  wrongFieldType: `const count: string = (await t.request('GET', '/api/v1/conversations/counts')).body.unread;`,
  spelledOutPathWins: `const count: number = (await t.request('GET', '/api/v1/conversations/counts?team=mine')).body.unread;`,
  listPage: `const texts: (string | null)[] = (await t.request('GET', \`/api/v1/conversations/\${id}/messages?limit=2\`)).body.data.map((m) => m.text);`,
  refusal: `const error: string | undefined = (await t.request('POST', '/api/v1/auth/login', { body: {} })).body.error;`,
  noContent: `void (await t.request('DELETE', \`/api/v1/users/\${id}\`)).body.id;`,
  urlBuiltAtRunTime: `const url: string = '/api/v1/me'; void (await t.request('GET', url)).body.id;`,
};

function fixture(directory: string, body: string): string {
  const support = relative(directory, join(ROOT, 'test', 'support', 'test-app')).replace(/\\/g, '/');
  return `
import type { TestApp } from '${support}';
export async function attempt(t: TestApp, id: string): Promise<void> {
  ${body}
}
`;
}

describe('answer body types in tests', () => {
  let errors: Record<keyof typeof CASES, string[]>;

  beforeAll(() => {
    errors = compileCases(CASES, fixture);
  }, 120_000);

  it('compiles the read of a documented field of a documented path, with its documented type', () => {
    expect(errors.documentedField).toEqual([]);
    expect(errors.listPage).toEqual([]);
  });

  it('refuses to compile the read of a field the document does not describe', () => {
    expect(errors.undocumentedField.join('\n')).toMatch(/Property 'customer_name' does not exist/);
  });

  it('refuses to compile a documented field read as another type', () => {
    expect(errors.wrongFieldType.join('\n')).toMatch(/Type 'number' is not assignable to type 'string'/);
  });

  it('types a spelled-out path by itself, not by the {id} path beside it, query string and all', () => {
    expect(errors.spelledOutPathWins).toEqual([]);
  });

  it("types a refusal's error on every documented answer, and no body on a 204", () => {
    expect(errors.refusal).toEqual([]);
    expect(errors.noContent.join('\n')).toMatch(/Property 'id' does not exist/);
  });

  it('makes the body of a URL the types cannot place unknown, so the test says what it expects', () => {
    expect(errors.urlBuiltAtRunTime.join('\n')).toMatch(/is of type 'unknown'/);
  });
});

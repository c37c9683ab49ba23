import { startTestApp, TestApp } from './support/test-app';

type Json = Record<string, unknown>;
const RULE: Json = { name: 'A rule', event: 'message.received', conditions: [], actions: [{ type: 'close' }] };
const MACRO: Json = { name: 'A macro', visibility: 'personal', actions: [{ type: 'close' }] };

/** Every field of a rule and a macro, null, of the wrong type or empty: a 400 naming it, never a 5xx. */
describe('automation input', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  const cases = (base: Json): [string, Json][] =>
    Object.keys(base).flatMap((field) =>
      [null, 42, '', [], {}].map((value): [string, Json] => [`${field} = ${JSON.stringify(value)}`, { ...base, [field]: value }]),
    );

  it.each(cases(RULE).filter(([name]) => name !== 'conditions = []'))(
    'refuses a rule with %s with 400 naming the field',
    async (name, body) => {
      const answer = await t.request('POST', '/api/v1/automation-rules', { token: admin, body });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(name.split(' ')[0]);
    },
  );

  it.each(cases(MACRO))('refuses a macro with %s with 400 naming the field', async (name, body) => {
    const answer = await t.request('POST', '/api/v1/macros', { token: admin, body });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain(name.split(' ')[0]);
  });

  it('accepts the same rule and macro with every field right', async () => {
    expect((await t.request('POST', '/api/v1/automation-rules', { token: admin, body: RULE })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/macros', { token: admin, body: MACRO })).status).toBe(201);
  });
});

import { startTestApp, TestApp } from './support/test-app';

type Json = Record<string, unknown>;
const RULE: Json = { name: 'A rule', event: 'message.received', conditions: [], actions: [{ type: 'close' }] };
const MACRO: Json = { name: 'A macro', visibility: 'personal', actions: [{ type: 'close' }] };
const AUDIENCE: Json = {
  tags: ['input'],
  labels: ['input'],
  contact_ids: ['ct_01a2047c8e2078c99d14947d2651598e'],
  attributes: { city: 'Rome' },
};
const TEMPLATE: Json = { name: 'hello_world', language: 'en_US', components: [] };
const CAMPAIGN: Json = {
  name: 'A campaign',
  inbox_id: 'inb_00000000000070008000000000000001',
  template: TEMPLATE,
  audience: AUDIENCE,
  scheduled_at: '2030-01-01T09:00:00Z',
  rate_per_second: 10,
};

/** Every field of a rule, a macro and a campaign, null, of the wrong type or empty: a 400 naming it, never a 5xx. */
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

  // Null clears a campaign's start time, an empty list or object of an audience's filters adds nothing, and 42 is a rate: all taken.
  const takenAsIs = new Set([
    'scheduled_at = null',
    'rate_per_second = 42',
    'components = []',
    'tags = []',
    'labels = []',
    'contact_ids = []',
    'attributes = {}',
  ]);
  const campaignCases: [string, Json][] = [
    ...cases(CAMPAIGN),
    ...cases(TEMPLATE).map(([name, template]): [string, Json] => [name, { ...CAMPAIGN, template }]),
    ...cases(AUDIENCE).map(([name, audience]): [string, Json] => [name, { ...CAMPAIGN, audience }]),
  ].filter(([name]) => !takenAsIs.has(name));

  it.each(campaignCases)('refuses a campaign with %s with 400 naming the field', async (name, body) => {
    const answer = await t.request('POST', '/api/v1/campaigns', { token: admin, body });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain(name.split(' ')[0]);
  });

  it('accepts the same campaign with every field right', async () => {
    expect((await t.request('POST', '/api/v1/campaigns', { token: admin, body: CAMPAIGN })).status).toBe(201);
  });

  it('accepts the same rule and macro with every field right', async () => {
    expect((await t.request('POST', '/api/v1/automation-rules', { token: admin, body: RULE })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/macros', { token: admin, body: MACRO })).status).toBe(201);
  });
});

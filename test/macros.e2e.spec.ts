import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

type Json = Record<string, unknown>;

describe('macros', () => {
  let t: TestApp;
  let admin: string;
  let agent: { id: string; token: string };
  let colleague: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
    agent = await t.createUser({ name: 'Mac Agent' });
    colleague = await t.createUser({ name: 'Mac Colleague' });
    for (const name of ['refund', 'waiting-for-customer'])
      expect((await t.request('POST', '/api/v1/labels', { token: admin, body: { name } })).status).toBe(201);
  });
  afterAll(() => t.close());

  const save = async (token: string, body: Json) => {
    const saved = await t.request('POST', '/api/v1/macros', { token, body });
    expect(saved.status).toBe(201);
    return saved.body as { id: string };
  };
  const run = (token: string, conversationId: string, macroId: string) =>
    t.request('POST', `/api/v1/conversations/${conversationId}/macros/${macroId}`, { token });
  const thread = async (id: string) =>
    (await t.request('GET', `/api/v1/conversations/${id}/messages?limit=100`, { token: admin })).body.data.slice().reverse();

  it("lists the team's macros and one's own, never a colleague's personal ones", async () => {
    const team = await save(admin, { name: 'Team: refund', visibility: 'team', actions: [{ type: 'add_labels', labels: ['refund'] }] });
    const mine = await save(agent.token, { name: 'Mine: close', visibility: 'personal', actions: [{ type: 'close' }] });
    const theirs = await save(colleague.token, { name: 'Theirs', visibility: 'personal', actions: [{ type: 'close' }] });
    const listed = (await t.request('GET', '/api/v1/macros', { token: agent.token })).body.data.map((macro: Json) => macro.id);
    expect(listed).toEqual(expect.arrayContaining([team.id, mine.id]));
    expect(listed).not.toContain(theirs.id);
    const { id } = await customerWrites(t);
    expect((await run(agent.token, id, theirs.id)).status).toBe(404);
    expect((await t.request('PATCH', `/api/v1/macros/${theirs.id}`, { token: agent.token, body: { name: 'x' } })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/macros', { token: agent.token })).body.data.find((m: Json) => m.id === mine.id)).toMatchObject({
      name: 'Mine: close',
      visibility: 'personal',
      owner_id: agent.id,
      actions: [{ type: 'close' }],
    });
  });

  it('lets only admins make or change team macros (403 for an agent), and an agent change their own', async () => {
    const refused = await t.request('POST', '/api/v1/macros', {
      token: agent.token,
      body: { name: 'Shared', visibility: 'team', actions: [{ type: 'close' }] },
    });
    expect(refused.status).toBe(403);
    const team = await save(admin, { name: 'Shared', visibility: 'team', actions: [{ type: 'close' }] });
    expect((await t.request('DELETE', `/api/v1/macros/${team.id}`, { token: agent.token })).status).toBe(403);
    const mine = await save(agent.token, { name: 'Draft', visibility: 'personal', actions: [{ type: 'close' }] });
    const renamed = await t.request('PATCH', `/api/v1/macros/${mine.id}`, { token: agent.token, body: { name: 'Final' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Final');
    expect((await t.request('PATCH', `/api/v1/macros/${mine.id}`, { token: agent.token, body: { visibility: 'team' } })).status).toBe(403);
    expect((await t.request('DELETE', `/api/v1/macros/${mine.id}`, { token: agent.token })).status).toBe(204);
    expect((await t.request('DELETE', `/api/v1/macros/${team.id}`, { token: admin })).status).toBe(204);
  });

  it('runs its actions as the agent: their reply and note, labels and the close, answering what each did', async () => {
    const macro = await save(agent.token, {
      name: 'Refund: ask for the order',
      visibility: 'personal',
      actions: [
        { type: 'add_labels', labels: ['refund', 'waiting-for-customer'] },
        { type: 'send_text', text: 'Could you send the order number?' },
        { type: 'add_note', text: 'Asked for the order number' },
        { type: 'close' },
      ],
    });
    const { id } = await customerWrites(t, { text: 'I want a refund' });
    const ran = await run(agent.token, id, macro.id);
    expect(ran.status).toBe(200);
    expect(ran.body.conversation).toMatchObject({ id, status: 'closed', labels: ['refund', 'waiting-for-customer'] });
    expect(ran.body.actions.map((action: Json) => [action.type, action.outcome])).toEqual([
      ['add_labels', 'done'],
      ['send_text', 'done'],
      ['add_note', 'done'],
      ['close', 'done'],
    ]);
    const messages = await thread(id);
    expect(messages.find((message: Json) => message.text === 'Could you send the order number?')).toMatchObject({
      direction: 'outbound',
      sent_by: agent.id,
      automated: false,
    });
    expect(messages.find((message: Json) => message.type === 'note')).toMatchObject({ sent_by: agent.id, automated: false });
    const closed = (await t.events('conversation.closed')).find((event) => event.data.conversation.id === id);
    expect(closed).toBeDefined();
  });

  it('skips a send outside the window with the reason, and the rest go on', async () => {
    const macro = await save(agent.token, {
      name: 'Nudge',
      visibility: 'personal',
      actions: [
        { type: 'send_text', text: 'Still there?' },
        { type: 'add_labels', labels: ['refund'] },
      ],
    });
    const { id } = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 2 * 86_400, text: 'Old' });
    const ran = await run(agent.token, id, macro.id);
    expect(ran.status).toBe(200);
    expect(ran.body.actions).toEqual([
      { type: 'send_text', outcome: 'skipped', detail: "outside the customer's 24-hour window" },
      { type: 'add_labels', outcome: 'done', detail: null },
    ]);
    expect(ran.body.conversation.labels).toEqual(['refund']);
  });

  it('answers 422 for a macro whose label was deleted, changing nothing', async () => {
    const label = (await t.request('POST', '/api/v1/labels', { token: admin, body: { name: 'temporary' } })).body;
    const macro = await save(agent.token, {
      name: 'Temp',
      visibility: 'personal',
      actions: [
        { type: 'add_note', text: 'x' },
        { type: 'add_labels', labels: ['temporary'] },
      ],
    });
    await t.request('DELETE', `/api/v1/labels/${label.id}`, { token: admin });
    const { id } = await customerWrites(t);
    const ran = await run(agent.token, id, macro.id);
    expect(ran.status).toBe(422);
    expect(ran.body.error).toBe('The macro cannot run: label "temporary" no longer exists');
    expect((await thread(id)).filter((message: Json) => message.type === 'note')).toEqual([]);
  });

  it('refuses a malformed macro with 400 naming the field', async () => {
    const answer = await t.request('POST', '/api/v1/macros', {
      token: agent.token,
      body: { name: 'Bad', visibility: 'personal', actions: [{ type: 'snooze' }] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain('actions[0].duration');
    const hidden = await t.request('POST', '/api/v1/macros', {
      token: agent.token,
      body: { name: 'Bad', visibility: 'secret', actions: [] },
    });
    expect(hidden.status).toBe(400);
    expect(hidden.body.error).toContain('visibility must be one of personal, team');
  });
});

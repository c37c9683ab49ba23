import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

const DEFAULT_INBOX = 'inb_00000000000070008000000000000001';

describe('teams', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, token = admin) => t.request('POST', '/api/v1/teams', { token, body });

  it('creates a team with members and inboxes, lists it to every user, changes and deletes it (admin), each in the audit log', async () => {
    const member = await t.createUser({ name: 'Team Member' });
    const created = await create({
      name: 'Billing',
      description: 'Refunds and invoices',
      member_ids: [member.id],
      inbox_ids: [DEFAULT_INBOX],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^team_[0-9a-f]{32}$/),
      name: 'Billing',
      description: 'Refunds and invoices',
      member_ids: [member.id],
      inbox_ids: [DEFAULT_INBOX],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const listed = await t.request('GET', '/api/v1/teams', { token: member.token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toContainEqual(created.body);

    const other = await t.createUser({ name: 'Second Member' });
    const changed = await t.request('PATCH', `/api/v1/teams/${created.body.id}`, {
      token: admin,
      body: { name: 'Billing desk', member_ids: [other.id, member.id] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Billing desk', description: 'Refunds and invoices', inbox_ids: [DEFAULT_INBOX] });
    expect([...changed.body.member_ids].sort()).toEqual([member.id, other.id].sort());

    expect((await t.request('DELETE', `/api/v1/teams/${created.body.id}`, { token: admin })).status).toBe(204);
    expect((await t.request('DELETE', `/api/v1/teams/${created.body.id}`, { token: admin })).status).toBe(404);
    const audit = await t.request('GET', '/api/v1/audit-log?limit=100', { token: admin });
    const entries = audit.body.data.filter((entry) => entry.target === created.body.id);
    expect(entries.map((entry) => entry.action).sort()).toEqual(['team.created', 'team.deleted', 'team.updated']);
  });

  it('lets only admins create, change or delete a team (403 to an agent)', async () => {
    const agent = await t.createUser();
    expect((await create({ name: 'Agents cannot' }, agent.token)).status).toBe(403);
    const team = await create({ name: 'Admins can' });
    expect(team.status).toBe(201);
    expect((await t.request('PATCH', `/api/v1/teams/${team.body.id}`, { token: agent.token, body: { name: 'x' } })).status).toBe(403);
    expect((await t.request('DELETE', `/api/v1/teams/${team.body.id}`, { token: agent.token })).status).toBe(403);
  });

  it('refuses a second team of the same name in any case with 409', async () => {
    expect((await create({ name: 'Unique Team' })).status).toBe(201);
    const again = await create({ name: 'unique team' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('A team with this name already exists');
  });

  it('refuses a member or an inbox that does not exist with 422 naming the list, and malformed ids with 400', async () => {
    const nobody = await create({ name: 'Ghost members', member_ids: [`user_${'0'.repeat(31)}9`] });
    expect(nobody.status).toBe(422);
    expect(nobody.body.error).toBe('member_ids names a user that does not exist');
    const nowhere = await create({ name: 'Ghost inboxes', inbox_ids: [`inb_${'0'.repeat(31)}9`] });
    expect(nowhere.status).toBe(422);
    expect(nowhere.body.error).toBe('inbox_ids names an inbox that does not exist');
    const malformed = await create({ name: 'Bad ids', member_ids: ['ana'] });
    expect(malformed.status).toBe(400);
    const empty = await create({ name: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain('name');
    const nothing = await t.request('PATCH', `/api/v1/teams/${(await create({ name: 'Unchanged' })).body.id}`, { token: admin, body: {} });
    expect(nothing.status).toBe(400);
  });

  describe('a conversation handed to a team', () => {
    it('takes team_id by PATCH, recorded as conversation.updated with the change, and null removes it', async () => {
      const team = await create({ name: 'Handling team', inbox_ids: [DEFAULT_INBOX] });
      const { id } = await customerWrites(t);
      const handed = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { team_id: team.body.id } });
      expect(handed.status).toBe(200);
      expect(handed.body.team_id).toBe(team.body.id);
      const removed = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { team_id: null } });
      expect(removed.body.team_id).toBeNull();
      const updates = (await t.events('conversation.updated')).filter((event) => event.data.conversation.id === id);
      expect(updates.map((event) => event.data.changes)).toEqual([
        { team_id: { from: null, to: team.body.id } },
        { team_id: { from: team.body.id, to: null } },
      ]);
    });

    it('refuses a team that does not work the conversation’s inbox, or does not exist, with 422', async () => {
      const elsewhere = await create({ name: 'Works elsewhere' });
      const { id } = await customerWrites(t);
      const refused = await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { team_id: elsewhere.body.id } });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toBe("team_id names a team that does not work the conversation's inbox");
      const unknown = await t.request('PATCH', `/api/v1/conversations/${id}`, {
        token: admin,
        body: { team_id: `team_${'0'.repeat(31)}9` },
      });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error).toBe('team_id does not name a team');
      expect((await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { team_id: 'billing' } })).status).toBe(400);
    });

    it('loses its team when the team is deleted, keeping its agent', async () => {
      const team = await create({ name: 'Short-lived', inbox_ids: [DEFAULT_INBOX] });
      const { id } = await customerWrites(t);
      await t.request('PATCH', `/api/v1/conversations/${id}`, {
        token: admin,
        body: { team_id: team.body.id, assigned_to: (await t.createUser()).id },
      });
      await t.request('DELETE', `/api/v1/teams/${team.body.id}`, { token: admin });
      const after = await t.request('GET', `/api/v1/conversations/${id}`, { token: admin });
      expect(after.body.team_id).toBeNull();
      expect(after.body.assigned_to).not.toBeNull();
    });

    it('is listed with team_id=mine to the members of its team, and with its id, and not to others', async () => {
      const member = await t.createUser({ name: 'Mine Member' });
      const outsider = await t.createUser({ name: 'Not Member' });
      const team = await create({ name: 'Mine team', member_ids: [member.id], inbox_ids: [DEFAULT_INBOX] });
      const { id } = await customerWrites(t);
      const { id: other } = await customerWrites(t);
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { team_id: team.body.id } });
      const mine = await t.request('GET', '/api/v1/conversations?team_id=mine', { token: member.token });
      expect(mine.body.data.map((c) => c.id)).toEqual([id]);
      expect((await t.request('GET', '/api/v1/conversations?team_id=mine', { token: outsider.token })).body.data).toEqual([]);
      const byId = await t.request('GET', `/api/v1/conversations?team_id=${team.body.id}`, { token: outsider.token });
      expect(byId.body.data.map((c) => c.id)).toEqual([id]);
      expect(byId.body.data.map((c) => c.id)).not.toContain(other);
      expect((await t.request('GET', '/api/v1/conversations?team_id=ours', { token: admin })).status).toBe(400);
    });
  });
});

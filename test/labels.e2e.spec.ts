import { randomBytes } from 'node:crypto';
import { parsePublicId } from '../src/common/ids';
import { TEST_DATABASE_URL } from './support/environment';
import { asInEvents, customerWrites } from './support/inbox';
import { RowHolder } from './support/row-locks';
import { startTestApp, TestApp } from './support/test-app';

/** A label name no other test of this file uses. */
const unique = (stem: string) => `${stem}-${randomBytes(3).toString('hex')}`;

describe('labels', () => {
  let t: TestApp;
  let admin: string;
  let agent: { id: string; token: string };
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
    agent = await t.createUser({ role: 'agent' });
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, token = admin) => t.request('POST', '/api/v1/labels', { token, body });
  const label = async (name: string, color?: string) => {
    const answer = await create({ name, ...(color ? { color } : {}) });
    if (answer.status !== 201) throw new Error(`creating label ${name} answered ${answer.status}: ${answer.text}`);
    return answer.body as { id: string; name: string; color: string };
  };
  const setLabels = (conversationId: string, labels: unknown, token = admin) =>
    t.request('PATCH', `/api/v1/conversations/${conversationId}`, { token, body: { labels } });
  const labelsOf = async (conversationId: string) =>
    (await t.request('GET', `/api/v1/conversations/${conversationId}`, { token: admin })).body.labels as string[];
  const updatedEvents = async (conversationId: string) =>
    (await t.events('conversation.updated')).filter((event) => event.data.conversation.id === conversationId).map((event) => event.data);

  describe('the catalogue', () => {
    it('creates a label (admin) with 201: its lbl_ id, name as written, color and times', async () => {
      const name = unique('Billing');
      const answer = await create({ name, color: '#1F93FF' });
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({
        id: expect.stringMatching(/^lbl_[0-9a-f]{32}$/),
        name,
        color: '#1f93ff',
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
    });

    it('gives a label without a color the default one, and trims the name', async () => {
      const name = unique('plain');
      expect((await create({ name: `  ${name} ` })).body).toMatchObject({ name, color: '#6b7280' });
    });

    it('lists every label oldest first, page by page, to every user', async () => {
      const names = [unique('first'), unique('second'), unique('third')];
      for (const name of names) await label(name);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { data: { name: string }[]; next_cursor: string | null } } = await t.request(
          'GET',
          `/api/v1/labels?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          { token: agent.token },
        );
        expect(page.status).toBe(200);
        seen.push(...page.body.data.map((l) => l.name));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen.filter((name) => names.includes(name))).toEqual(names);
    });

    it('refuses a name taken in any case with 409, on create and on rename', async () => {
      const name = unique('Urgent');
      await label(name);
      const duplicate = await create({ name: name.toUpperCase() });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body).toEqual({ error: 'A label with this name already exists' });
      const other = await label(unique('other'));
      const renamed = await t.request('PATCH', `/api/v1/labels/${other.id}`, { token: admin, body: { name: name.toLowerCase() } });
      expect(renamed.status).toBe(409);
      expect(renamed.body).toEqual({ error: 'A label with this name already exists' });
    });

    it.each([
      ['no name', { color: '#ffffff' }, /^name /],
      ['an empty name', { name: '   ' }, /^name is required/],
      ['a name of 51 characters', { name: 'x'.repeat(51) }, /^name must be at most 50 characters/],
      ['a name with a comma', { name: 'a,b' }, 'name must not contain commas or control characters'],
      ['a name with a control character', { name: 'a\tb' }, 'name must not contain commas or control characters'],
      ['a name that is not a string', { name: 42 }, /^name must be text/],
      ['a color that is no hex color', { name: 'fine', color: 'red' }, 'color must be a hex color like #1f93ff'],
      ['a short hex color', { name: 'fine', color: '#fff' }, 'color must be a hex color like #1f93ff'],
      ['an unknown field', { name: 'fine', priority: 1 }, 'priority is not a known field'],
    ])('refuses %s with 400 naming the field', async (_, body, message) => {
      const answer = await create(body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    });

    it('renames and recolors a label; the new name shows on its conversations at once', async () => {
      const old = await label(unique('old'));
      const { id } = await customerWrites(t);
      await setLabels(id, [old.name]);
      const name = unique('new');
      const renamed = await t.request('PATCH', `/api/v1/labels/${old.id}`, { token: admin, body: { name, color: '#00AA00' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ id: old.id, name, color: '#00aa00' });
      expect(await labelsOf(id)).toEqual([name]);
    });

    // Only PostgreSQL has a second connection to stand for a concurrent request. One lock order
    // for labels and conversations: the label, then the conversation.
    (TEST_DATABASE_URL ? it : it.skip)(
      'renames a label holding nothing else while the label is share-locked, as a macro or a change of labels holds it',
      async () => {
        const old = await label(unique('busy'));
        const { id } = await customerWrites(t);
        await setLabels(id, [old.name]);
        const name = unique('calm');
        const holder = await RowHolder.start(t);
        let renamed: Promise<{ status: number }> | undefined;
        try {
          await holder.query('SELECT id FROM labels WHERE id = $1 FOR SHARE', [parsePublicId('lbl', old.id)]);
          renamed = t.request('PATCH', `/api/v1/labels/${old.id}`, { token: admin, body: { name } });
          expect(await holder.finishesWithoutWaiting(renamed)).toBe('waited');
          // The rename waits for its label before its conversations: the holder can take one.
          await holder.query("SET LOCAL lock_timeout = '5s'");
          await holder.query('SELECT id FROM conversations WHERE id = $1 FOR NO KEY UPDATE', [parsePublicId('conv', id)]);
        } finally {
          await holder.end(true);
        }
        expect((await renamed!).status).toBe(200);
        expect(await labelsOf(id)).toEqual([name]);
      },
    );

    (TEST_DATABASE_URL ? it : it.skip)("changes a conversation's labels holding nothing else while a rename holds the label", async () => {
      const renaming = await label(unique('renaming'));
      const { id } = await customerWrites(t);
      const holder = await RowHolder.start(t);
      let changed: Promise<{ status: number }> | undefined;
      try {
        await holder.query('SELECT id FROM labels WHERE id = $1 FOR NO KEY UPDATE', [parsePublicId('lbl', renaming.id)]);
        changed = setLabels(id, [renaming.name]);
        expect(await holder.finishesWithoutWaiting(changed)).toBe('waited');
        // The change waits for the label before it takes the conversation, which the rename's names need.
        await holder.query("SET LOCAL lock_timeout = '5s'");
        await holder.query('SELECT id FROM conversations WHERE id = $1 FOR NO KEY UPDATE', [parsePublicId('conv', id)]);
      } finally {
        await holder.end(true);
      }
      expect((await changed!).status).toBe(200);
      expect(await labelsOf(id)).toEqual([renaming.name]);
    });

    (TEST_DATABASE_URL ? it : it.skip)(
      'renames a label when the database broke a deadlock by aborting the rename: it runs again',
      async () => {
        const old = await label(unique('cycle'));
        const { id } = await customerWrites(t);
        await setLabels(id, [old.name]);
        const name = unique('again');
        // The holder takes the other order (a macro's, which holds the conversation when it reads its labels).
        const holder = await RowHolder.start(t);
        let renamed: Promise<{ status: number }> | undefined;
        try {
          await holder.query('SELECT id FROM conversations WHERE id = $1 FOR NO KEY UPDATE', [parsePublicId('conv', id)]);
          renamed = t.request('PATCH', `/api/v1/labels/${old.id}`, { token: admin, body: { name } });
          expect(await holder.finishesWithoutWaiting(renamed)).toBe('waited');
          // The rename holds the label and waits for the conversation: the cycle closes, and one is aborted.
          await holder.query('SELECT id FROM labels WHERE id = $1 FOR SHARE', [parsePublicId('lbl', old.id)]).catch(() => undefined);
        } finally {
          await holder.end(true);
        }
        expect((await renamed!).status).toBe(200);
        expect(await labelsOf(id)).toEqual([name]);
      },
    );

    it('refuses a PATCH without name or color with 400, and an unknown label with 404', async () => {
      const some = await label(unique('some'));
      const empty = await t.request('PATCH', `/api/v1/labels/${some.id}`, { token: admin, body: {} });
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual({ error: 'Body must contain name or color' });
      const unknown = await t.request('PATCH', '/api/v1/labels/lbl_0000000000007000800000000000000a', {
        token: admin,
        body: { color: '#000000' },
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'Label not found' });
    });

    it('deletes a label with 204, removing it from every conversation that had it', async () => {
      const [doomed, kept] = [await label(unique('doomed')), await label(unique('kept'))];
      const [first, second] = [await customerWrites(t), await customerWrites(t)];
      await setLabels(first.id, [doomed.name, kept.name]);
      await setLabels(second.id, [doomed.name]);
      expect((await t.request('DELETE', `/api/v1/labels/${doomed.id}`, { token: admin })).status).toBe(204);
      expect(await labelsOf(first.id)).toEqual([kept.name]);
      expect(await labelsOf(second.id)).toEqual([]);
      expect((await t.request('DELETE', `/api/v1/labels/${doomed.id}`, { token: admin })).status).toBe(404);
      const list = await t.request('GET', '/api/v1/labels?limit=100', { token: admin });
      expect((list.body.data as { id: string }[]).map((l) => l.id)).not.toContain(doomed.id);
    });

    it('lets an agent read the catalogue but refuses them every change with 403', async () => {
      const some = await label(unique('agents'));
      expect((await t.request('GET', '/api/v1/labels', { token: agent.token })).status).toBe(200);
      const refusals = [
        await create({ name: unique('by-agent') }, agent.token),
        await t.request('PATCH', `/api/v1/labels/${some.id}`, { token: agent.token, body: { color: '#000000' } }),
        await t.request('DELETE', `/api/v1/labels/${some.id}`, { token: agent.token }),
      ];
      expect(refusals.map((answer) => answer.status)).toEqual([403, 403, 403]);
      const list = await t.request('GET', '/api/v1/labels?limit=100', { token: admin });
      expect(list.body.data).toContainEqual(some);
    });
  });

  describe('on conversations', () => {
    it('sets labels by name in any case, answering their names sorted, and replaces the set each time', async () => {
      const [vip, billing, urgent] = [await label(unique('Vip')), await label(unique('billing')), await label(unique('urgent'))];
      const { id } = await customerWrites(t);
      const first = await setLabels(id, [vip.name.toUpperCase(), billing.name]);
      expect(first.status).toBe(200);
      expect(first.body.labels).toEqual([billing.name, vip.name]);
      const second = await setLabels(id, [urgent.name, vip.name]);
      expect(second.body.labels).toEqual([urgent.name, vip.name]);
      expect(await labelsOf(id)).toEqual([urgent.name, vip.name]);
      expect((await setLabels(id, [])).body.labels).toEqual([]);
    });

    it('lets an agent set labels: agents work the inbox', async () => {
      const some = await label(unique('by-agent'));
      const { id } = await customerWrites(t);
      const answer = await setLabels(id, [some.name], agent.token);
      expect(answer.status).toBe(200);
      expect(answer.body.labels).toEqual([some.name]);
    });

    it('refuses a name that is no label with 422 naming it, changing nothing', async () => {
      const known = await label(unique('known'));
      const { id } = await customerWrites(t);
      await setLabels(id, [known.name]);
      const events = (await t.events()).length;
      const answer = await setLabels(id, [known.name, 'no-such-label']);
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ error: 'labels: no label is named "no-such-label"' });
      expect(await labelsOf(id)).toEqual([known.name]);
      expect((await t.events()).length).toBe(events);
    });

    it.each([
      ['labels that are not an array', 'vip', 'labels must be a list'],
      ['a label that is not a string', ['vip', 7], 'labels must contain only strings'],
      ['an empty name', [''], 'labels must each be 1 to 50 characters long'],
      ['51 labels', Array.from({ length: 51 }, (_, i) => `l${i}`), /^labels must have at most 50 items/],
    ])('refuses %s with 400', async (_, labels, message) => {
      const { id } = await customerWrites(t);
      const answer = await setLabels(id, labels);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    });

    it('records conversation.updated with the labels before and after, and nothing when the set stays the same', async () => {
      const [a, b] = [await label(unique('a')), await label(unique('b'))];
      const { id } = await customerWrites(t);
      const first = await setLabels(id, [b.name, a.name]);
      const second = await setLabels(id, [b.name]);
      expect(await updatedEvents(id)).toEqual([
        { conversation: asInEvents(first.body), changes: { labels: { from: [], to: [a.name, b.name] } } },
        { conversation: asInEvents(second.body), changes: { labels: { from: [a.name, b.name], to: [b.name] } } },
      ]);
      const events = (await t.events()).length;
      expect((await setLabels(id, [b.name.toUpperCase()])).status).toBe(200);
      expect((await t.events()).length).toBe(events);
    });

    it('records one conversation.updated for labels and snooze set together', async () => {
      const some = await label(unique('together'));
      const { id } = await customerWrites(t);
      const until = new Date(Date.now() + 3600_000).toISOString();
      const answer = await t.request('PATCH', `/api/v1/conversations/${id}`, {
        token: admin,
        body: { labels: [some.name], status: 'snoozed', snoozed_until: until },
      });
      expect(answer.body).toMatchObject({ labels: [some.name], status: 'snoozed', snoozed_until: until });
      expect(await updatedEvents(id)).toEqual([
        {
          conversation: asInEvents(answer.body),
          changes: {
            labels: { from: [], to: [some.name] },
            status: { from: 'open', to: 'snoozed' },
            snoozed_until: { from: null, to: until },
          },
        },
      ]);
    });

    it('carries the labels of every conversation in the list, and filters the list by label= in any case', async () => {
      const [red, blue] = [await label(unique('red')), await label(unique('blue'))];
      const [both, redOnly, none] = [await customerWrites(t), await customerWrites(t), await customerWrites(t)];
      await setLabels(both.id, [red.name, blue.name]);
      await setLabels(redOnly.id, [red.name]);
      const list = await t.request('GET', '/api/v1/conversations?limit=100', { token: admin });
      const labelsById = new Map((list.body.data as { id: string; labels: string[] }[]).map((c) => [c.id, c.labels]));
      expect([labelsById.get(both.id), labelsById.get(redOnly.id), labelsById.get(none.id)]).toEqual([
        [blue.name, red.name],
        [red.name],
        [],
      ]);
      const ids = async (query: string) =>
        ((await t.request('GET', `/api/v1/conversations?${query}`, { token: admin })).body.data as { id: string }[]).map((c) => c.id);
      expect(await ids(`label=${encodeURIComponent(red.name.toUpperCase())}`)).toEqual([redOnly.id, both.id]);
      expect(await ids(`label=${encodeURIComponent(blue.name)}`)).toEqual([both.id]);
      expect(await ids('label=no-such-label')).toEqual([]);
      expect((await t.request('GET', `/api/v1/conversations?label=${'x'.repeat(51)}`, { token: admin })).status).toBe(400);
    });
  });
});

import { parsePublicId } from '../src/common/ids';
import { RetentionService } from '../src/events/retention.service';
import { eventually } from './support/channel';
import { numberChangeWebhook } from './support/channel-fixtures';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

const DEFAULT_INBOX = 'inb_00000000000070008000000000000001';
type Json = Record<string, unknown>;

describe('automation rules', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
    for (const name of ['refund', 'vip', 'urgent', 'spam'])
      expect((await t.request('POST', '/api/v1/labels', { token: admin, body: { name } })).status).toBe(201);
  });
  afterAll(() => t.close());
  afterEach(async () => {
    for (const rule of (await t.request('GET', '/api/v1/automation-rules', { token: admin })).body.data)
      await t.request('DELETE', `/api/v1/automation-rules/${rule.id}`, { token: admin });
    await t.request('PATCH', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin, body: { business_hours: null } });
  });

  const createRule = async (body: Json) => {
    const created = await t.request('POST', '/api/v1/automation-rules', {
      token: admin,
      body: { name: 'A rule', event: 'message.received', conditions: [], ...body },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  };
  const runsOf = async (ruleId: string) => (await t.request('GET', `/api/v1/automation-rules/${ruleId}/runs`, { token: admin })).body.data;
  const conversation = async (id: string) => (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body;
  const thread = async (id: string) =>
    (await t.request('GET', `/api/v1/conversations/${id}/messages?limit=100`, { token: admin })).body.data.slice().reverse();
  /** No trigger of the conversation's events is left to run: every rule has had its turn on them. */
  const rulesSettled = () =>
    eventually(async () => {
      // One statement, one snapshot: the relay's commit turns an unrelayed event into a pending trigger at once.
      const [{ left }] = await t.sql<{ left: number }>(
        `SELECT (SELECT count(*) FROM automation_triggers WHERE status = 'pending')
              + (SELECT count(*) FROM events WHERE relayed_at IS NULL) AS left`,
      );
      expect(Number(left)).toBe(0);
    });
  /** A rule that labels `refund` when `condition` holds, and the conversation a customer's `text` opens, once rules ran on it. */
  const labelledWhen = async (condition: Json, text = 'Hello', name = 'Customer') => {
    await createRule({ conditions: [condition], actions: [{ type: 'add_labels', labels: ['refund'] }] });
    const { id } = await customerWrites(t, { text, name });
    await rulesSettled();
    return (await conversation(id)).labels.includes('refund') as boolean;
  };

  describe('the API', () => {
    it('creates, lists in order, changes and deletes rules, each change in the audit log', async () => {
      const first = await createRule({ name: 'First', actions: [{ type: 'add_labels', labels: ['vip'] }] });
      const second = await createRule({ name: 'Second', actions: [{ type: 'close' }], position: 0 });
      const listed = (await t.request('GET', '/api/v1/automation-rules', { token: admin })).body.data;
      expect(listed.map((rule: Json) => rule.name)).toEqual(['Second', 'First']);
      expect(listed[1]).toMatchObject({
        id: expect.stringMatching(/^rule_/),
        enabled: true,
        event: 'message.received',
        conditions: [],
        actions: [{ type: 'add_labels', labels: ['vip'] }],
        disabled_reason: null,
      });
      const changed = await t.request('PATCH', `/api/v1/automation-rules/${first.id}`, {
        token: admin,
        body: { enabled: false, conditions: [{ field: 'message.text', operator: 'contains', value: 'refund' }] },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({
        enabled: false,
        conditions: [{ field: 'message.text', operator: 'contains', value: 'refund' }],
      });
      expect((await t.request('DELETE', `/api/v1/automation-rules/${second.id}`, { token: admin })).status).toBe(204);
      expect((await t.request('GET', `/api/v1/automation-rules/${second.id}`, { token: admin })).status).toBe(404);
      const audit = (await t.request('GET', '/api/v1/audit-log?limit=5', { token: admin })).body.data.map((entry: Json) => entry.action);
      expect(audit).toEqual(expect.arrayContaining(['rule.created', 'rule.updated', 'rule.deleted']));
    });

    it('is for admins: an agent gets 403 on every route', async () => {
      const agent = await t.createUser({ role: 'agent' });
      const rule = await createRule({ actions: [{ type: 'close' }] });
      expect((await t.request('GET', '/api/v1/automation-rules', { token: agent.token })).status).toBe(403);
      expect((await t.request('POST', '/api/v1/automation-rules', { token: agent.token, body: {} })).status).toBe(403);
      expect((await t.request('GET', `/api/v1/automation-rules/${rule.id}/runs`, { token: agent.token })).status).toBe(403);
      expect((await t.request('GET', `/api/v1/automation-rules/${rule.id}/runs`, { token: admin })).status).toBe(200);
    });

    it.each<[string, Json, string]>([
      ['an unknown event', { event: 'message.sent' }, 'event must be one of conversation.created, message.received, conversation.closed'],
      [
        'an unknown field',
        { conditions: [{ field: 'contact.age', operator: 'equals', value: '3' }] },
        'conditions[0].field must be one of',
      ],
      [
        'an unknown operator',
        { conditions: [{ field: 'message.text', operator: 'like', value: 'a' }] },
        'conditions[0].operator must be one of',
      ],
      [
        'in without a list',
        { conditions: [{ field: 'contact.name', operator: 'in', value: 'Ann' }] },
        'conditions[0].value must be a list',
      ],
      [
        'a backreference',
        { conditions: [{ field: 'message.text', operator: 'matches', value: '(a)\\1' }] },
        'conditions[0].value is not a regular expression this service runs',
      ],
      [
        'business hours compared with contains',
        { conditions: [{ field: 'within_business_hours', operator: 'contains', value: true }] },
        'within_business_hours takes only equals or not_equals',
      ],
      ['no actions', { actions: [] }, 'actions must be a list of 1 to 20'],
      ['an unknown action', { actions: [{ type: 'explode' }] }, 'actions[0].type must be one of'],
      ['a stray field', { actions: [{ type: 'close', when: 'now' }] }, 'actions[0] has no field when'],
      ['a bad snooze', { actions: [{ type: 'snooze', duration: '10s' }] }, 'actions[0].duration must be a duration from 1m to 90d'],
      ['a bad team id', { actions: [{ type: 'assign_team', team_id: 'billing' }] }, "actions[0].team_id must be a team's id"],
      ['a reserved attribute', { actions: [{ type: 'set_attribute', key: 'phone', value: 'x' }] }, 'is reserved'],
      ['a text PostgreSQL cannot store', { actions: [{ type: 'add_note', text: 'a\u0000b' }] }, 'must not contain NUL characters'],
    ])('refuses %s with 400 naming it', async (_what, body, message) => {
      const answer = await t.request('POST', '/api/v1/automation-rules', {
        token: admin,
        body: { name: 'Bad', event: 'message.received', conditions: [], actions: [{ type: 'close' }], ...body },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
    });

    it('refuses with 422 a rule naming a label or team that does not exist', async () => {
      const label = await t.request('POST', '/api/v1/automation-rules', {
        token: admin,
        body: { name: 'Bad', event: 'message.received', conditions: [], actions: [{ type: 'add_labels', labels: ['nope'] }] },
      });
      expect(label.status).toBe(422);
      expect(label.body.error).toBe('actions: label "nope" does not exist');
      const team = await t.request('POST', '/api/v1/automation-rules', {
        token: admin,
        body: {
          name: 'Bad',
          event: 'message.received',
          conditions: [],
          actions: [{ type: 'assign_team', team_id: 'team_0193a2047c8e7c99ad14947d2651598e' }],
        },
      });
      expect(team.status).toBe(422);
      expect(team.body.error).toContain('does not exist');
    });
  });

  describe('conditions', () => {
    it.each<[string, Json, string, boolean]>([
      ['equals, folding case and accents', { field: 'message.text', operator: 'equals', value: 'CAFÉ' }, 'cafe', true],
      ['equals, another text', { field: 'message.text', operator: 'equals', value: 'cafe' }, 'cafes', false],
      ['not_equals', { field: 'message.text', operator: 'not_equals', value: 'hello' }, 'goodbye', true],
      ['not_equals, the same text', { field: 'message.text', operator: 'not_equals', value: 'hello' }, 'Hello', false],
      ['contains', { field: 'message.text', operator: 'contains', value: 'refund' }, 'I want a REFUND please', true],
      ['contains, absent', { field: 'message.text', operator: 'contains', value: 'refund' }, 'Where is my parcel', false],
      ['not_contains', { field: 'message.text', operator: 'not_contains', value: 'refund' }, 'Where is my parcel', true],
      ['not_contains, present', { field: 'message.text', operator: 'not_contains', value: 'refund' }, 'refund!', false],
      ['starts_with', { field: 'message.text', operator: 'starts_with', value: 'order' }, 'Order 1234 is late', true],
      ['starts_with, elsewhere', { field: 'message.text', operator: 'starts_with', value: 'order' }, 'My order 1234', false],
      ['in', { field: 'message.text', operator: 'in', value: ['yes', 'ok', 'sure'] }, 'OK', true],
      ['in, none', { field: 'message.text', operator: 'in', value: ['yes', 'ok'] }, 'no', false],
      ['matches', { field: 'message.text', operator: 'matches', value: '\\b[A-Z]{2}\\d{6}\\b' }, 'Tracking AB123456 please', true],
      ['matches, no match', { field: 'message.text', operator: 'matches', value: '\\b[A-Z]{2}\\d{6}\\b' }, 'Tracking ab12', false],
    ])('%s', async (_what, condition, text, holds) => {
      expect(await labelledWhen(condition, text)).toBe(holds);
    });

    it('reads the contact name, and a list field holds when one of its elements does', async () => {
      expect(await labelledWhen({ field: 'contact.name', operator: 'starts_with', value: 'dr.' }, 'Hi', 'Dr. Watson')).toBe(true);
      expect(await labelledWhen({ field: 'conversation.labels', operator: 'not_contains', value: 'refund' }, 'Hi')).toBe(true);
    });

    it('reads the contact phone, its tags and an attribute', async () => {
      const { id, phone } = await customerWrites(t, { text: 'first' });
      const contactId = (
        await t.sql<{ contact_id: string }>('SELECT contact_id FROM conversations WHERE id = $1', [parsePublicId('conv', id)])
      )[0].contact_id;
      await t.sql(`UPDATE contacts SET tags = ARRAY['gold'], attributes = '{"tier": "platinum"}' WHERE id = $1`, [contactId]);
      await createRule({
        conditions: [
          { field: 'contact.phone', operator: 'equals', value: phone },
          { field: 'contact.tags', operator: 'contains', value: 'GOLD' },
          { field: 'contact.attributes.tier', operator: 'in', value: ['platinum', 'diamond'] },
        ],
        actions: [{ type: 'add_labels', labels: ['vip'] }],
      });
      await customerWrites(t, { phone: phone.slice(1), text: 'second' });
      await rulesSettled();
      expect((await conversation(id)).labels).toEqual(['vip']);
    });

    it('reads whether the message came inside business hours', async () => {
      await t.request('PATCH', `/api/v1/inboxes/${DEFAULT_INBOX}`, {
        token: admin,
        body: { business_hours: { timezone: 'UTC', days: {}, holidays: [] } },
      });
      expect(await labelledWhen({ field: 'within_business_hours', operator: 'equals', value: false }, 'at night')).toBe(true);
    });

    it('reads whether the message came inside business hours: always, without hours', async () => {
      expect(await labelledWhen({ field: 'within_business_hours', operator: 'equals', value: false }, 'at noon')).toBe(false);
    });

    it('reads the inbox', async () => {
      expect(await labelledWhen({ field: 'conversation.inbox_id', operator: 'equals', value: DEFAULT_INBOX })).toBe(true);
    });

    it('reads the inbox: another one', async () => {
      expect(
        await labelledWhen({ field: 'conversation.inbox_id', operator: 'equals', value: 'inb_0193a2047c8e7c99ad14947d2651598e' }),
      ).toBe(false);
    });

    it('runs a catastrophic regular expression in bounded time (a linear-time engine), matching as written', async () => {
      // (a+)+$ backtracks exponentially in a backtracking engine on a run of a's that ends otherwise.
      const rule = await createRule({
        conditions: [{ field: 'message.text', operator: 'matches', value: '(a+)+$' }],
        actions: [{ type: 'add_labels', labels: ['spam'] }],
      });
      const { id } = await customerWrites(t, { text: `${'a'.repeat(4000)}!` });
      await rulesSettled();
      expect((await conversation(id)).labels).toEqual([]);
      const { id: other } = await customerWrites(t, { text: 'aaaa' });
      await rulesSettled();
      expect((await conversation(other)).labels).toEqual(['spam']);
      expect(await runsOf(rule.id)).toHaveLength(1);
    });
  });

  describe('actions', () => {
    it('assigns to a team and a user, labels, takes a label off, sets an attribute and notes, logging what each did', async () => {
      const agent = await t.createUser({ name: 'Rita Rule' });
      const team = (
        await t.request('POST', '/api/v1/teams', {
          token: admin,
          body: { name: 'Billing', inbox_ids: [DEFAULT_INBOX], member_ids: [agent.id] },
        })
      ).body;
      const rule = await createRule({
        actions: [
          { type: 'assign_team', team_id: team.id },
          { type: 'assign_user', user_id: agent.id },
          { type: 'add_labels', labels: ['refund', 'urgent'] },
          { type: 'remove_labels', labels: ['urgent'] },
          { type: 'set_attribute', key: 'last_topic', value: 'refund' },
          { type: 'add_note', text: 'Refund request: check the order' },
        ],
      });
      const { id } = await customerWrites(t, { text: 'refund please' });
      await rulesSettled();
      expect(await conversation(id)).toMatchObject({ team_id: team.id, assigned_to: agent.id, labels: ['refund'] });
      const note = (await thread(id)).find((message: Json) => message.type === 'note');
      expect(note).toMatchObject({ text: 'Refund request: check the order', automated: true, sent_by: null });
      const contactId = (
        await t.sql<{ contact_id: string }>('SELECT contact_id FROM conversations WHERE id = $1', [parsePublicId('conv', id)])
      )[0].contact_id;
      expect((await t.sql<{ attributes: Json }>('SELECT attributes FROM contacts WHERE id = $1', [contactId]))[0].attributes).toEqual({
        last_topic: 'refund',
      });
      const [run] = await runsOf(rule.id);
      expect(run).toMatchObject({
        event: 'message.received',
        conversation_id: id,
        outcome: 'acted',
        event_id: expect.stringMatching(/^evt_/),
      });
      expect(run.actions.map((action: Json) => [action.type, action.outcome])).toEqual([
        ['assign_team', 'done'],
        ['assign_user', 'done'],
        ['add_labels', 'done'],
        ['remove_labels', 'done'],
        ['set_attribute', 'done'],
        ['add_note', 'done'],
      ]);
      const assigned = (await t.events('conversation.assigned')).find((event) => event.data.conversation.id === id);
      expect(assigned?.data).toMatchObject({ assigned_to: agent.id, assigned_by: null });
    });

    it('sends a text inside the window, automated, and skips it with the reason when the inbox is disabled', async () => {
      const rule = await createRule({ event: 'conversation.created', actions: [{ type: 'send_text', text: 'We got your message.' }] });
      const { id } = await customerWrites(t, { text: 'hi' });
      await rulesSettled();
      const sent = (await thread(id)).find((message: Json) => message.direction === 'outbound');
      expect(sent).toMatchObject({ text: 'We got your message.', automated: true, sent_by: null });
      const [run] = await runsOf(rule.id);
      expect(run.actions).toEqual([{ type: 'send_text', outcome: 'done', detail: sent?.id }]);
    });

    it('sends an approved template', async () => {
      await createRule({
        event: 'conversation.created',
        actions: [{ type: 'send_template', template: { name: 'hello_world', language: 'en_US' } }],
      });
      const { id } = await customerWrites(t, { text: 'hi' });
      await rulesSettled();
      expect((await thread(id)).find((message: Json) => message.direction === 'outbound')).toMatchObject({
        type: 'template',
        automated: true,
        content: { name: 'hello_world', language: 'en_US' },
      });
    });

    it('snoozes, closes, and sends an automation.triggered event to webhooks', async () => {
      const snoozer = await createRule({
        conditions: [{ field: 'message.text', operator: 'equals', value: 'later' }],
        actions: [{ type: 'snooze', duration: '4h' }],
      });
      const { id: snoozed } = await customerWrites(t, { text: 'later' });
      await rulesSettled();
      const asleep = await conversation(snoozed);
      expect(asleep.status).toBe('snoozed');
      expect(Date.parse(asleep.snoozed_until!) - Date.now()).toBeGreaterThan(3.9 * 3_600_000);
      expect(await runsOf(snoozer.id)).toHaveLength(1);

      const closer = await createRule({
        conditions: [{ field: 'message.text', operator: 'equals', value: 'bye' }],
        actions: [{ type: 'send_webhook_event', name: 'customer_left' }, { type: 'close' }],
      });
      const { id: closed } = await customerWrites(t, { text: 'bye' });
      await rulesSettled();
      expect((await conversation(closed)).status).toBe('closed');
      const triggered = (await t.events('automation.triggered')).find((event) => event.data.conversation.id === closed);
      expect(triggered?.data).toMatchObject({
        name: 'customer_left',
        rule_id: closer.id,
        macro_id: null,
        trigger_event_type: 'message.received',
      });
    });
  });

  describe('how rules run', () => {
    it('runs every rule of the event in order, each seeing what the one before did, once per event', async () => {
      await createRule({ name: 'Label it', actions: [{ type: 'add_labels', labels: ['vip'] }] });
      await createRule({
        name: 'Then note it',
        conditions: [{ field: 'conversation.labels', operator: 'contains', value: 'vip' }],
        actions: [{ type: 'add_note', text: 'A VIP wrote' }],
      });
      const { id, phone } = await customerWrites(t, { text: 'one' });
      await customerWrites(t, { phone: phone.slice(1), text: 'two' });
      await rulesSettled();
      expect((await thread(id)).filter((message: Json) => message.type === 'note').map((message: Json) => message.text)).toEqual([
        'A VIP wrote',
        'A VIP wrote',
      ]);
    });

    it("never runs on a rule's own changes: a close by a rule starts no conversation.closed rule, a close by an agent does", async () => {
      await createRule({ conditions: [{ field: 'message.text', operator: 'equals', value: 'close me' }], actions: [{ type: 'close' }] });
      const onClose = await createRule({ event: 'conversation.closed', actions: [{ type: 'add_note', text: 'Closed' }] });
      const { id } = await customerWrites(t, { text: 'close me' });
      await rulesSettled();
      expect((await conversation(id)).status).toBe('closed');
      expect(await runsOf(onClose.id)).toHaveLength(0);

      const { id: byHand } = await customerWrites(t, { text: 'thanks' });
      await t.request('PATCH', `/api/v1/conversations/${byHand}`, { token: admin, body: { status: 'closed' } });
      await rulesSettled();
      expect(await runsOf(onClose.id)).toHaveLength(1);
    });

    it('a rule looping on its own message (send_text on message.received) sends once', async () => {
      await createRule({ actions: [{ type: 'send_text', text: 'Echo' }] });
      const { id } = await customerWrites(t, { text: 'ping' });
      await rulesSettled();
      expect((await thread(id)).filter((message: Json) => message.text === 'Echo')).toHaveLength(1);
    });

    it('turns off a rule whose label was deleted, with the reason, logging it once instead of failing on every event', async () => {
      const label = (await t.request('POST', '/api/v1/labels', { token: admin, body: { name: 'doomed' } })).body;
      const rule = await createRule({ actions: [{ type: 'add_labels', labels: ['doomed'] }] });
      expect((await t.request('DELETE', `/api/v1/labels/${label.id}`, { token: admin })).status).toBe(204);
      const { phone } = await customerWrites(t, { text: 'one' });
      await customerWrites(t, { phone: phone.slice(1), text: 'two' });
      await rulesSettled();
      const turnedOff = (await t.request('GET', `/api/v1/automation-rules/${rule.id}`, { token: admin })).body;
      expect(turnedOff).toMatchObject({ enabled: false, disabled_reason: 'label "doomed" no longer exists' });
      const runs = await runsOf(rule.id);
      expect(runs).toEqual([expect.objectContaining({ outcome: 'disabled', reason: 'label "doomed" no longer exists', actions: [] })]);
      const again = await t.request('PATCH', `/api/v1/automation-rules/${rule.id}`, { token: admin, body: { enabled: true } });
      expect(again.body).toMatchObject({ enabled: true, disabled_reason: null });
    });

    it('turns off a rule whose team was deleted', async () => {
      const team = (await t.request('POST', '/api/v1/teams', { token: admin, body: { name: 'Gone soon', inbox_ids: [DEFAULT_INBOX] } }))
        .body;
      const rule = await createRule({ actions: [{ type: 'assign_team', team_id: team.id }] });
      await t.request('DELETE', `/api/v1/teams/${team.id}`, { token: admin });
      await customerWrites(t, { text: 'hi' });
      await rulesSettled();
      expect((await t.request('GET', `/api/v1/automation-rules/${rule.id}`, { token: admin })).body.disabled_reason).toBe(
        `team ${team.id} no longer exists`,
      );
    });

    it('turns off a rule whose template is not in the catalogue', async () => {
      const rule = await createRule({ actions: [{ type: 'send_template', template: { name: 'no_such_template', language: 'en_US' } }] });
      await customerWrites(t, { text: 'hi' });
      await rulesSettled();
      const turnedOff = (await t.request('GET', `/api/v1/automation-rules/${rule.id}`, { token: admin })).body;
      expect(turnedOff.enabled).toBe(false);
      expect(turnedOff.disabled_reason).toContain('its template cannot be sent: Template no_such_template');
    });

    it('undoes a rule that fails unexpectedly, logs it, and still runs the rules after it', async () => {
      // A row written around the API's checks: a snooze past the end of time throws (an invalid date) after the note went in.
      const [{ id: broken }] = await t.sql<{ id: string }>(
        `INSERT INTO automation_rules (id, name, enabled, event, conditions, actions, position, created_at, updated_at)
         VALUES (gen_random_uuid(), 'Broken', true, 'message.received', '[]',
                 '[{"type":"add_note","text":"from the broken rule"},{"type":"snooze","duration":"9999999999999999d"}]', 0, now(), now())
         RETURNING id`,
      );
      const healthy = await createRule({ position: 1, actions: [{ type: 'add_labels', labels: ['urgent'] }] });
      const { id } = await customerWrites(t, { text: 'hello' });
      await rulesSettled();
      expect((await conversation(id)).labels).toEqual(['urgent']);
      expect((await thread(id)).filter((message: Json) => message.text === 'from the broken rule')).toEqual([]);
      const [failed] = await runsOf(`rule_${broken.replace(/-/g, '')}`);
      expect(failed).toMatchObject({ outcome: 'failed', actions: [], reason: expect.stringContaining('the rule failed') });
      expect(await runsOf(healthy.id)).toEqual([expect.objectContaining({ outcome: 'acted' })]);
    });

    it('runs on no number-change notice: it is not the customer writing', async () => {
      const rule = await createRule({ actions: [{ type: 'add_labels', labels: ['vip'] }] });
      const { phone } = await customerWrites(t, { text: 'first' });
      await rulesSettled();
      expect(await runsOf(rule.id)).toHaveLength(1);
      const changed = await t.request('POST', '/api/webhooks/messaging', { body: numberChangeWebhook(phone.slice(1), '16505550199') });
      expect(changed.status).toBe(200);
      await rulesSettled();
      expect(await runsOf(rule.id)).toHaveLength(1);
    });

    it('keeps the run log as long as EVENT_RETENTION keeps events: the prune takes older runs and leaves recent ones', async () => {
      const rule = await createRule({ actions: [{ type: 'add_labels', labels: ['vip'] }] });
      const { phone } = await customerWrites(t, { text: 'old' });
      await rulesSettled();
      await t.sql(`UPDATE automation_runs SET created_at = now() - interval '400 days'`);
      await customerWrites(t, { phone: phone.slice(1), text: 'recent' });
      await rulesSettled();
      expect(await runsOf(rule.id)).toHaveLength(2);
      await t.app.get(RetentionService).pruneNow();
      expect(await runsOf(rule.id)).toHaveLength(1);
    });

    it('records no trigger while no enabled rule runs on the event', async () => {
      await createRule({ enabled: false, actions: [{ type: 'close' }] });
      await customerWrites(t, { text: 'hi' });
      await rulesSettled();
      const [{ n }] = await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM automation_triggers');
      expect(n).toBe(0);
    });
  });
});

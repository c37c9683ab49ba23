import { AutoResolve } from '../src/automation/auto-resolve';
import { parsePublicId } from '../src/common/ids';
import { eventually } from './support/channel';
import { messageWebhook } from './support/channel-fixtures';
import { customerWrites } from './support/inbox';
import { startTestApp, TestApp } from './support/test-app';

const DEFAULT_INBOX = 'inb_00000000000070008000000000000001';
const ALWAYS_OPEN = {
  timezone: 'UTC',
  days: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]])),
  holidays: [],
};
const NEVER_OPEN = { timezone: 'UTC', days: {}, holidays: [] };
const GREETING = 'Thanks for writing! Someone answers within the hour.';
const AWAY = 'We are closed now: we answer from 9:00.';

describe('automation: business hours, greeting and away messages, auto-resolve', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  const configure = (body: Record<string, unknown>) => t.request('PATCH', `/api/v1/inboxes/${DEFAULT_INBOX}`, { token: admin, body });
  const thread = async (id: string) =>
    (await t.request('GET', `/api/v1/conversations/${id}/messages?limit=100`, { token: admin })).body.data.slice().reverse();
  const automated = async (id: string) => (await thread(id)).filter((message) => message.automated).map((message) => message.text);

  describe('settings', () => {
    it('keeps business hours, greeting, away and auto-resolve on the inbox, says whether it is open now, and null removes each', async () => {
      const set = await configure({
        business_hours: NEVER_OPEN,
        greeting: { enabled: true, text: GREETING },
        away: { enabled: false, text: AWAY },
        auto_resolve_after: '1440m',
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({
        business_hours: NEVER_OPEN,
        open_now: false,
        greeting: { enabled: true, text: GREETING },
        away: { enabled: false, text: AWAY },
        auto_resolve_after: '1d',
      });
      expect((await configure({ business_hours: ALWAYS_OPEN })).body.open_now).toBe(true);
      const cleared = await configure({ business_hours: null, greeting: null, away: null, auto_resolve_after: null });
      expect(cleared.body).toMatchObject({ business_hours: null, open_now: true, greeting: null, away: null, auto_resolve_after: null });
    });

    it.each([
      [{ business_hours: { timezone: 'Nowhere/City', days: {}, holidays: [] } }, 'business_hours.timezone'],
      // Node's zones include it; PostgreSQL's, which its facts' triggers read on every reply, do not.
      [
        { business_hours: { timezone: 'US/Pacific-New', days: {}, holidays: [] } },
        'business_hours.timezone US/Pacific-New is not known to the database',
      ],
      [{ business_hours: { timezone: 'UTC', days: { mon: [['18:00', '09:00']] }, holidays: [] } }, 'must start before it ends'],
      [{ business_hours: 'weekdays' }, 'business_hours must be an object or null'],
      [{ business_hours: { timezone: 'UTC', days: {} } }, 'business_hours.holidays is required: a list of dates, [] for none'],
      [{ greeting: { enabled: 'yes', text: 'Hi' } }, 'enabled must be true or false'],
      [{ greeting: { enabled: true, text: '' } }, 'text'],
      [{ away: 'away' }, 'away must be an object'],
      [{ auto_resolve_after: '10s' }, 'auto_resolve_after must be a duration from 1m to 90d'],
      [{ auto_resolve_after: 24 }, 'auto_resolve_after must be a duration from 1m to 90d'],
    ])('refuses %j with 400 naming the field', async (body, message) => {
      const answer = await configure(body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
    });
  });

  describe('greeting and away messages', () => {
    afterEach(() => configure({ business_hours: null, greeting: null, away: null }));

    it('greets a customer once, on the first message of a new conversation, as an automated message sent by nobody', async () => {
      await configure({ business_hours: ALWAYS_OPEN, greeting: { enabled: true, text: GREETING } });
      const { id, phone } = await customerWrites(t, { text: 'First' });
      await customerWrites(t, { phone: phone.slice(1), text: 'Second' });
      const messages = await thread(id);
      expect(messages.map((message) => [message.direction, message.text])).toEqual([
        ['inbound', 'First'],
        ['outbound', GREETING],
        ['inbound', 'Second'],
      ]);
      expect(messages[1]).toMatchObject({ automated: true, sent_by: null, type: 'text' });
      expect(messages[0].automated).toBe(false);
      const sent = (await t.events('message.sent')).filter((event) => event.data.conversation.id === id);
      expect(sent.map((event) => event.data.message.automated)).toEqual([true]);
    });

    it('does not greet a customer whose closed conversation they reopen, nor when the greeting is disabled', async () => {
      const { id, phone } = await customerWrites(t);
      await t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'closed' } });
      await configure({ greeting: { enabled: true, text: GREETING } });
      await customerWrites(t, { phone: phone.slice(1), text: 'Back again' });
      expect(await automated(id)).toEqual([]);
      await configure({ greeting: { enabled: false, text: GREETING } });
      const fresh = await customerWrites(t);
      expect(await automated(fresh.id)).toEqual([]);
    });

    it('answers outside business hours with the away message instead of the greeting, at most once in 12 hours', async () => {
      await configure({ business_hours: NEVER_OPEN, greeting: { enabled: true, text: GREETING }, away: { enabled: true, text: AWAY } });
      const { id, phone } = await customerWrites(t, { text: 'Anyone?' });
      await customerWrites(t, { phone: phone.slice(1), text: 'Hello?' });
      expect(await automated(id)).toEqual([AWAY]);
      // Twelve hours later, it goes again.
      await t.sql(`UPDATE conversations SET away_sent_at = now() - interval '12 hours 1 minute' WHERE id = $1`, [
        parsePublicId('conv', id),
      ]);
      await customerWrites(t, { phone: phone.slice(1), text: 'Next morning?' });
      expect(await automated(id)).toEqual([AWAY, AWAY]);
    });

    it('sends no away message inside business hours', async () => {
      await configure({ business_hours: ALWAYS_OPEN, away: { enabled: true, text: AWAY } });
      const { id } = await customerWrites(t);
      expect(await automated(id)).toEqual([]);
    });

    it('sends nothing to a blocked customer, nor on a message older than the 24 hours, and greets the next customer', async () => {
      await configure({ greeting: { enabled: true, text: GREETING } });
      const blockedPhone = '15550100777';
      const contact = await t.request('POST', '/api/v1/contacts', { token: admin, body: { phone: `+${blockedPhone}`, name: 'Blocked' } });
      expect(contact.status).toBe(201);
      await t.sql(`UPDATE contacts SET blocked_at = now() WHERE id = $1`, [parsePublicId('ct', contact.body.id)]);
      const blocked = await customerWrites(t, { phone: blockedPhone, text: 'Blocked but delivered' });
      expect(await automated(blocked.id)).toEqual([]);
      const stale = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 2 * 86_400, text: 'Redelivered late' });
      expect(await automated(stale.id)).toEqual([]);
      const welcome = await customerWrites(t);
      expect(await automated(welcome.id)).toEqual([GREETING]);
    });
  });

  describe('auto-resolve', () => {
    it('closes open conversations quiet for longer than the inbox’s delay, each with a note, and leaves snoozed and recent ones', async () => {
      await configure({ auto_resolve_after: '1h' });
      const quiet = await customerWrites(t);
      const snoozed = await customerWrites(t);
      const recent = await customerWrites(t);
      const later = new Date(Date.now() + 86_400_000).toISOString();
      await t.request('PATCH', `/api/v1/conversations/${snoozed.id}`, { token: admin, body: { status: 'snoozed', snoozed_until: later } });
      const ids = [quiet.id, snoozed.id].map((id) => parsePublicId('conv', id));
      await t.sql(`UPDATE conversations SET last_message_at = now() - interval '2 hours' WHERE id = ANY($1::uuid[])`, [ids]);

      expect(await t.app.get(AutoResolve).run()).toBeGreaterThanOrEqual(1);
      const statuses = async () =>
        Promise.all(
          [quiet, snoozed, recent].map(
            async ({ id }) => (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body.status,
          ),
        );
      expect(await statuses()).toEqual(['closed', 'snoozed', 'open']);
      const note = (await thread(quiet.id)).at(-1);
      expect(note).toMatchObject({
        direction: 'internal',
        type: 'note',
        text: 'Closed automatically after 1h without a message',
        automated: true,
        sent_by: null,
      });
      expect((await t.events('conversation.closed')).some((event) => event.data.conversation.id === quiet.id)).toBe(true);
      // Once closed, another pass closes nothing more of it.
      await t.app.get(AutoResolve).run();
      expect((await thread(quiet.id)).filter((message) => message.automated)).toHaveLength(1);
      await configure({ auto_resolve_after: null });
    });
  });

  describe('satisfaction survey', () => {
    const QUESTION = 'How did we do?';
    beforeAll(() => configure({ csat: { enabled: true, question: QUESTION } }));
    afterAll(() => configure({ csat: null }));

    const close = (id: string) => t.request('PATCH', `/api/v1/conversations/${id}`, { token: admin, body: { status: 'closed' } });
    const conversation = async (id: string) => (await t.request('GET', `/api/v1/conversations/${id}`, { token: admin })).body;
    /** The survey of the conversation once the channel took it: the message, and the wamid the channel gave it. */
    const surveyOf = async (id: string) => {
      const survey = (await thread(id)).findLast((message: Record<string, unknown>) => message.type === 'interactive');
      if (!survey) throw new Error('no survey in the thread');
      const wamid = await eventually(async () => {
        const [row] = await t.sql<{ channel_message_id: string | null }>('SELECT channel_message_id FROM messages WHERE id = $1', [
          parsePublicId('msg', survey.id),
        ]);
        expect(row.channel_message_id).toEqual(expect.any(String));
        return row.channel_message_id!;
      });
      return { survey, wamid };
    };
    const rates = async (phone: string, wamid: string, rating: number) => {
      const answer = await t.request('POST', '/api/webhooks/messaging', {
        body: messageWebhook(phone.slice(1), {
          type: 'interactive',
          context: { from: '15550783881', id: wamid },
          interactive: { type: 'list_reply', list_reply: { id: `csat_${rating}`, title: `${rating}` } },
        }),
      });
      expect(answer.status).toBe(200);
    };

    it('asks the customer with a list of 5 ratings when an agent closes inside the window, as an automated message', async () => {
      const { id } = await customerWrites(t, { text: 'Where is my order?' });
      expect((await close(id)).status).toBe(200);
      const { survey } = await surveyOf(id);
      expect(survey).toMatchObject({ direction: 'outbound', automated: true, sent_by: null, text: QUESTION });
      const { action } = survey.content as unknown as { action: { sections: { rows: { id: string; title: string }[] }[] } };
      const rows = action.sections[0].rows;
      expect(rows.map((row) => row.id).sort()).toEqual(['csat_1', 'csat_2', 'csat_3', 'csat_4', 'csat_5']);
      for (const row of rows) expect(row.title.startsWith(row.id.slice(-1))).toBe(true);
      expect((await conversation(id)).csat).toBeNull();
    });

    it('keeps the rating and the comment written after it without reopening, each with conversation.rated; a later message reopens', async () => {
      const { id, phone } = await customerWrites(t, { text: 'Thanks for the help' });
      await close(id);
      const { wamid } = await surveyOf(id);
      await rates(phone, wamid, 4);
      const rated = await conversation(id);
      expect(rated).toMatchObject({ status: 'closed', csat: { rating: 4, comment: null, rated_at: expect.any(String) } });
      await customerWrites(t, { phone: phone.slice(1), text: 'Quick and kind' });
      expect(await conversation(id)).toMatchObject({ status: 'closed', csat: { rating: 4, comment: 'Quick and kind' } });
      const events = (await t.events('conversation.rated')).filter((event) => event.data.conversation.id === id);
      expect(events.map((event) => event.data.conversation.csat)).toEqual([
        expect.objectContaining({ rating: 4, comment: null }),
        expect.objectContaining({ rating: 4, comment: 'Quick and kind' }),
      ]);
      await customerWrites(t, { phone: phone.slice(1), text: 'One more question' });
      expect(await conversation(id)).toMatchObject({ status: 'open', csat: { rating: 4, comment: 'Quick and kind' } });
    });

    it('counts a rating that arrives after the conversation was reopened, for the survey it answers', async () => {
      const { id, phone } = await customerWrites(t, { text: 'Help' });
      await close(id);
      const { wamid } = await surveyOf(id);
      await customerWrites(t, { phone: phone.slice(1), text: 'Actually, one more thing' });
      expect((await conversation(id)).status).toBe('open');
      await rates(phone, wamid, 2);
      expect(await conversation(id)).toMatchObject({ status: 'open', csat: { rating: 2 } });
      // The conversation is open: the customer's next text is them writing, not a comment.
      await customerWrites(t, { phone: phone.slice(1), text: 'And my invoice?' });
      expect(await conversation(id)).toMatchObject({ status: 'open', csat: { rating: 2, comment: null } });
    });

    it('takes a csat_ row quoting another message as an ordinary message: it reopens and rates nothing', async () => {
      const { id, phone } = await customerWrites(t, { text: 'Hi' });
      await close(id);
      await surveyOf(id);
      const inbound = (
        await t.sql<{ channel_message_id: string }>(
          "SELECT channel_message_id FROM messages WHERE conversation_id = $1 AND direction = 'inbound' LIMIT 1",
          [parsePublicId('conv', id)],
        )
      )[0].channel_message_id;
      await rates(phone, inbound, 5);
      expect(await conversation(id)).toMatchObject({ status: 'open', csat: null });
    });

    it('sends no survey outside the customer window, nor when a rule or auto-resolve closes', async () => {
      const stale = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 2 * 86_400, text: 'Old' });
      await close(stale.id);
      expect((await thread(stale.id)).filter((message: Record<string, unknown>) => message.type === 'interactive')).toEqual([]);

      await configure({ auto_resolve_after: '1m' });
      const quiet = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 120, text: 'Bye' });
      await t.sql("UPDATE conversations SET last_message_at = now() - interval '2 minutes' WHERE id = $1", [
        parsePublicId('conv', quiet.id),
      ]);
      await t.app.get(AutoResolve).run();
      await configure({ auto_resolve_after: null });
      expect((await conversation(quiet.id)).status).toBe('closed');
      expect((await thread(quiet.id)).filter((message: Record<string, unknown>) => message.type === 'interactive')).toEqual([]);
    });

    it('keeps the survey setting on the inbox and refuses a survey without a question', async () => {
      const inbox = (await t.request('GET', '/api/v1/inboxes', { token: admin })).body.data[0];
      expect(inbox.csat).toEqual({ enabled: true, question: QUESTION });
      const refused = await configure({ csat: { enabled: true, question: '' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toContain('question');
    });
  });
});

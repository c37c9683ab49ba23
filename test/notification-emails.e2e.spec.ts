import { Database } from '../src/database/database';
import { NotificationEmailer } from '../src/notifications/notification-emailer';
import { NotificationsService } from '../src/notifications/notifications.service';
import { eventually } from './support/channel';
import { describeWithPostgresAndRedis } from './support/environment';
import { customerWrites } from './support/inbox';
import { SmtpTestServer } from './support/mail-servers';
import { startTestApp, startTwoInstances, TestApp } from './support/test-app';

const APP_URL = 'https://inbox.example.test';
const uuidOf = (publicId: string) => publicId.replace(/^[a-z]+_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
const emailSettings = (smtp: SmtpTestServer, delay: string) => ({
  EMAIL_PROVIDER: 'smtp',
  EMAIL_SMTP_URL: smtp.url(),
  EMAIL_FROM: 'team@example.test',
  APP_URL,
  EMAIL_NOTIFICATION_DELAY: delay,
});

/** A notification for the user (public id), created the way other modules do. */
const notify = (t: TestApp, userId: string, text: string) =>
  t.app.get(NotificationsService).notify(t.app.get(Database).db, {
    userId: uuidOf(userId),
    type: 'message.received',
    conversationId: null,
    text,
  });

/**
 * EMAIL_NOTIFICATION_DELAY passes for the user's notifications still waiting to be e-mailed, and a
 * sweep runs (rather than waiting for the next periodic one, up to 10 s away with an hour's delay).
 */
async function delayPasses(t: TestApp, userId: string): Promise<void> {
  await t.sql('UPDATE notifications SET email_due_at = now() WHERE user_id = $1 AND email_due_at IS NOT NULL', [uuidOf(userId)]);
  await t.app.get(NotificationEmailer).sweep();
}

const emailsTo = async (t: TestApp, address: string) =>
  t.sql<{ kind: string }>('SELECT kind FROM outbound_emails WHERE to_address = $1 ORDER BY created_at', [address]);

describe('notification e-mails after a real delay', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({ env: emailSettings(smtp, '300ms') });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('e-mails an assignment still unread after EMAIL_NOTIFICATION_DELAY, with a link to the conversation', async () => {
    const agent = await t.createUser({ name: 'Dana Agent' });
    const { id: conversationId } = await customerWrites(t, { name: 'Carla Customer' });
    const assigned = await t.request('PATCH', `/api/v1/conversations/${conversationId}`, {
      token: await t.adminToken(),
      body: { assigned_to: agent.id },
    });
    expect(assigned.status).toBe(200);
    const [received] = await smtp.waitFor(agent.email);
    const [notification] = (await t.request('GET', '/api/v1/notifications', { token: agent.token })).body.data as { text: string }[];
    expect(received.subject).toBe(notification.text);
    expect(received.text).toContain('Hello Dana Agent,');
    expect(received.text).toContain(`${APP_URL}/conversations/${conversationId}`);
    expect(received.text).toContain('set to immediate');
  });
});

describe('notification e-mails', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;
  let emailer: NotificationEmailer;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    // An hour: the tests make the delay pass by moving the due times, never by waiting.
    t = await startTestApp({ env: emailSettings(smtp, '1h') });
    emailer = t.app.get(NotificationEmailer);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('e-mails each unread notification once, and never one read before the delay', async () => {
    const agent = await t.createUser();
    await notify(t, agent.id, 'Read in time');
    await notify(t, agent.id, 'Left unread');
    const listed = (await t.request('GET', '/api/v1/notifications', { token: agent.token })).body.data as { id: string; text: string }[];
    const readInTime = listed.find((notification) => notification.text === 'Read in time')!;
    expect((await t.request('POST', `/api/v1/notifications/${readInTime.id}/read`, { token: agent.token })).status).toBe(200);
    await delayPasses(t, agent.id);
    const [received] = await smtp.waitFor(agent.email);
    expect(received.subject).toBe('Left unread');
    // Later sweeps send nothing more: once a later notification is e-mailed, there is still one e-mail of the first.
    await notify(t, agent.id, 'Later');
    await delayPasses(t, agent.id);
    await smtp.waitFor(agent.email, 2);
    await emailer.sweep();
    expect(smtp.to(agent.email).map((email) => email.subject)).toEqual(['Left unread', 'Later']);
    expect(await emailsTo(t, agent.email)).toEqual([{ kind: 'notification' }, { kind: 'notification' }]);
  });

  it('e-mails nothing to a user whose notification e-mails are off', async () => {
    const quiet = await t.createUser();
    const marker = await t.createUser();
    expect((await t.request('PATCH', '/api/v1/me', { token: quiet.token, body: { email_notifications: 'off' } })).status).toBe(200);
    await notify(t, quiet.id, 'Not for e-mail');
    await notify(t, marker.id, 'Marker');
    await delayPasses(t, quiet.id);
    await delayPasses(t, marker.id);
    await smtp.waitFor(marker.email);
    await emailer.sweep();
    expect(smtp.to(quiet.email)).toEqual([]);
    expect(await t.sql('SELECT id FROM notifications WHERE user_id = $1 AND email_due_at IS NOT NULL', [uuidOf(quiet.id)])).toEqual([]);
  });

  it('sends a digest listing the unread notifications, at most one per interval, each notification in one digest only', async () => {
    const agent = await t.createUser({ name: 'Dig Agent' });
    expect((await t.request('PATCH', '/api/v1/me', { token: agent.token, body: { email_notifications: 'digest' } })).status).toBe(200);
    await notify(t, agent.id, 'First of the hour');
    await notify(t, agent.id, 'Second of the hour');
    await delayPasses(t, agent.id);
    const [digest] = await smtp.waitFor(agent.email);
    expect(digest.subject).toBe('Team Inbox: 2 unread notifications');
    expect(digest.text).toContain('First of the hour');
    expect(digest.text).toContain('Second of the hour');
    expect(digest.text).toContain('an hourly digest');

    // Within the hour: the next one waits.
    await notify(t, agent.id, 'Third, an hour later');
    await delayPasses(t, agent.id);
    expect(await emailer.sweep()).toBe(0);
    expect(await emailsTo(t, agent.email)).toEqual([{ kind: 'notification_digest' }]);

    // The hour passes.
    await t.sql(`UPDATE notification_digests SET sent_at = sent_at - interval '1 hour' WHERE user_id = $1`, [uuidOf(agent.id)]);
    await emailer.sweep();
    const [, next] = await smtp.waitFor(agent.email, 2);
    expect(next.subject).toBe('Team Inbox: one unread notification');
    expect(next.text).toContain('Third, an hour later');
    expect(next.text).not.toContain('First of the hour');
  });

  it('leaves out of the digest what was read before it went', async () => {
    const agent = await t.createUser();
    expect((await t.request('PATCH', '/api/v1/me', { token: agent.token, body: { email_notifications: 'digest' } })).status).toBe(200);
    await notify(t, agent.id, 'Read before the digest');
    expect((await t.request('POST', '/api/v1/notifications/read', { token: agent.token })).status).toBe(204);
    await notify(t, agent.id, 'Still unread');
    await delayPasses(t, agent.id);
    const [digest] = await smtp.waitFor(agent.email);
    expect(digest.subject).toBe('Team Inbox: one unread notification');
    expect(digest.text).not.toContain('Read before the digest');
  });
});

describeWithPostgresAndRedis('notification e-mails with two replicas (needs TEST_DATABASE_URL and TEST_REDIS_URL)', () => {
  let smtp: SmtpTestServer;
  let a: TestApp;
  let b: TestApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    ({ a, b, close } = await startTwoInstances(emailSettings(smtp, '1h')));
  });
  afterAll(async () => {
    await close();
    await smtp.close();
  });

  it('e-mails every notification once and every digest once, whichever replica sweeps', async () => {
    const single = await a.createUser();
    const digest = await a.createUser();
    expect((await b.request('PATCH', '/api/v1/me', { token: digest.token, body: { email_notifications: 'digest' } })).status).toBe(200);
    for (let i = 0; i < 30; i += 1) {
      await notify(i % 2 === 0 ? a : b, single.id, `Single ${i}`);
      await notify(i % 2 === 0 ? b : a, digest.id, `Digest ${i}`);
    }
    await delayPasses(a, single.id);
    await delayPasses(a, digest.id);
    const emailers = [a.app.get(NotificationEmailer), b.app.get(NotificationEmailer)];
    await Promise.all([...emailers, ...emailers].map((emailer) => emailer.sweep()));
    await smtp.waitFor(single.email, 30);
    await smtp.waitFor(digest.email, 1);
    await Promise.all(emailers.map((emailer) => emailer.sweep()));
    await eventually(async () => expect(await emailsTo(a, single.email)).toHaveLength(30));
    expect(new Set(smtp.to(single.email).map((email) => email.subject)).size).toBe(30);
    expect(smtp.to(single.email)).toHaveLength(30);
    expect(await emailsTo(a, digest.email)).toEqual([{ kind: 'notification_digest' }]);
    expect(smtp.to(digest.email)).toHaveLength(1);
    expect(smtp.to(digest.email)[0].subject).toBe('Team Inbox: 30 unread notifications');
  });
});

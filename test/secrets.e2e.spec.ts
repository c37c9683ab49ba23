import { createHash } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { eventually } from './support/channel';
import { SecretBox } from '../src/config/secret-box';
import { describeWithPostgres } from './support/environment';
import { startTestApp, TestApp } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { ReceivedDelivery, WebhookReceiver } from './support/webhook-receiver';

const KEY_A = Buffer.alloc(32, 0xa1);
const KEY_B = Buffer.alloc(32, 0xb2);
const KEY_C = Buffer.alloc(32, 0xc3);
const SECRET = 'a-receiver-secret-of-some-length';
const OTHER_SECRET = 'another-receiver-secret-entirely';
const FAST_RETRIES = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms', WEBHOOK_TIMEOUT_MS: '2000' };

const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);
const keys = (current: Buffer, ...previous: Buffer[]) => ({
  ...FAST_RETRIES,
  ENCRYPTION_KEY: current.toString('base64'),
  ...(previous.length > 0 ? { ENCRYPTION_KEY_PREVIOUS: previous.map((key) => key.toString('base64')).join(',') } : {}),
});

let phones = 0;
const nextPhone = () => `+1415555${String(7000 + (phones += 1))}`;

async function register(t: TestApp, receiver: WebhookReceiver, path: string, secret: string): Promise<string> {
  const answer = await t.request('POST', '/api/v1/webhooks', {
    token: await t.adminToken(),
    body: { url: receiver.url(path), events: ['contact.created'], secret },
  });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
}

async function createContact(t: TestApp): Promise<void> {
  expect((await t.request('POST', '/api/v1/contacts', { token: await t.adminToken(), body: { phone: nextPhone() } })).status).toBe(201);
}

async function storedSecret(t: TestApp, publicId: string): Promise<string> {
  const [row] = await t.sql<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [publicId.replace(/^wh_/, '')]);
  return row.secret;
}

function verifies(delivery: ReceivedDelivery, secret: string): boolean {
  try {
    new StandardWebhook(secret, { format: 'raw' }).verify(delivery.body, delivery.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/** Neither a secret nor a key, in any encoding given to the app, in any log line. */
function expectNoSecretInLogs(t: TestApp): void {
  const logs = JSON.stringify(t.logs);
  for (const text of [SECRET, OTHER_SECRET, ...[KEY_A, KEY_B, KEY_C].flatMap((key) => [key.toString('base64'), key.toString('hex')])]) {
    expect(logs).not.toContain(text);
  }
}

describe('webhook secrets at rest', () => {
  let receiver: WebhookReceiver;
  let database: TestDatabase;
  const apps: TestApp[] = [];
  let paths = 0;
  const newPath = () => `/secret-${(paths += 1)}`;
  const start = async (env: Record<string, string>) => {
    const t = await startTestApp({ database, env });
    apps.push(t);
    return t;
  };
  const stop = async (t: TestApp) => {
    apps.splice(apps.indexOf(t), 1);
    await t.close();
  };

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
    await database.drop();
    await receiver.close();
  });

  it('stores the secret encrypted, never as itself, and signs deliveries with the secret', async () => {
    const t = await start(keys(KEY_A));
    const path = newPath();
    const id = await register(t, receiver, path, SECRET);
    const stored = await storedSecret(t, id);
    expect(stored).toMatch(new RegExp(`^enc:v1:${keyId(KEY_A)}:`));
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain(Buffer.from(SECRET).toString('base64'));

    await createContact(t);
    await eventually(async () => expect(receiver.received(path)).toHaveLength(1));
    expect(verifies(receiver.received(path)[0], SECRET)).toBe(true);

    // A new secret is stored encrypted too, and signs from then on.
    expect(
      (await t.request('PATCH', `/api/v1/webhooks/${id}`, { token: await t.adminToken(), body: { secret: OTHER_SECRET } })).status,
    ).toBe(200);
    expect(await storedSecret(t, id)).not.toBe(stored);
    expect(await storedSecret(t, id)).not.toContain(OTHER_SECRET);
    await createContact(t);
    await eventually(async () => expect(receiver.received(path)).toHaveLength(2));
    expect(verifies(receiver.received(path)[1], OTHER_SECRET)).toBe(true);
    expect(verifies(receiver.received(path)[1], SECRET)).toBe(false);
    expectNoSecretInLogs(t);
  });

  it('re-encrypts every stored secret with a new key at start-up, plain text from before included, and keeps signing with them', async () => {
    const first = await start(keys(KEY_A));
    const [encryptedPath, plainPath] = [newPath(), newPath()];
    const encrypted = await register(first, receiver, encryptedPath, SECRET);
    const plain = await register(first, receiver, plainPath, OTHER_SECRET);
    // A row as this version's predecessor stored it.
    await first.sql('UPDATE webhooks SET secret = $1 WHERE id = $2', [OTHER_SECRET, plain.replace(/^wh_/, '')]);
    await stop(first);

    // The rotation: the new key, the old one still readable.
    const rotated = await start(keys(KEY_B, KEY_A));
    for (const id of [encrypted, plain]) expect(await storedSecret(rotated, id)).toMatch(new RegExp(`^enc:v1:${keyId(KEY_B)}:`));
    expect(rotated.logs.map((line) => line.msg)).toContain(`Re-encrypted 2 webhook secret(s) with key ${keyId(KEY_B)}`);
    await createContact(rotated);
    await eventually(async () => expect([receiver.received(encryptedPath).length, receiver.received(plainPath).length]).toEqual([1, 1]));
    expect(verifies(receiver.received(encryptedPath)[0], SECRET)).toBe(true);
    expect(verifies(receiver.received(plainPath)[0], OTHER_SECRET)).toBe(true);
    expectNoSecretInLogs(rotated);
    await stop(rotated);

    // Once every replica has started with the new key, the old one can go.
    const after = await start(keys(KEY_B));
    expect(after.logs.map((line) => line.msg)).not.toContainEqual(expect.stringMatching(/Re-encrypted|cannot be decrypted/));
    await createContact(after);
    await eventually(async () => expect([receiver.received(encryptedPath).length, receiver.received(plainPath).length]).toEqual([2, 2]));
    expect(verifies(receiver.received(encryptedPath)[1], SECRET)).toBe(true);
    expect(verifies(receiver.received(plainPath)[1], OTHER_SECRET)).toBe(true);
    expectNoSecretInLogs(after);
  });

  it('with a value of a key no longer configured: logs it, fails its deliveries with a clear error, and the API still answers', async () => {
    const first = await start(keys(KEY_A));
    const path = newPath();
    const id = await register(first, receiver, path, SECRET);
    await stop(first);

    const t = await start(keys(KEY_C));
    const stored = await storedSecret(t, id);
    expect(stored).toMatch(new RegExp(`^enc:v1:${keyId(KEY_A)}:`));
    const expected = `The webhook secret cannot be decrypted: it was encrypted with key ${keyId(KEY_A)}, which is neither ENCRYPTION_KEY (${keyId(KEY_C)}) nor in ENCRYPTION_KEY_PREVIOUS`;
    expect(t.logs).toContainEqual(expect.objectContaining({ level: 50, msg: expect.stringContaining(`Webhook ${id}: ${expected}`) }));

    await createContact(t);
    const admin = await t.adminToken();
    const deliveries = await eventually(async () => {
      const answer = await t.request('GET', `/api/v1/webhooks/${id}/deliveries`, { token: admin });
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([expect.objectContaining({ status: 'failed', attempts: 4, last_status_code: null })]);
      return answer.body.data as { last_error: string }[];
    });
    expect(deliveries[0].last_error).toContain(expected);
    expect(deliveries[0].last_error).toContain('set a new secret with PATCH');
    expect(receiver.received(path)).toEqual([]);
    expect((await t.request('GET', `/api/v1/webhooks/${id}`, { token: admin })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/webhooks', { token: admin })).status).toBe(200);

    // Setting the secret anew recovers the registration.
    expect((await t.request('PATCH', `/api/v1/webhooks/${id}`, { token: admin, body: { secret: OTHER_SECRET } })).status).toBe(200);
    expect(await storedSecret(t, id)).toMatch(new RegExp(`^enc:v1:${keyId(KEY_C)}:`));
    await createContact(t);
    await eventually(async () => expect(receiver.received(path)).toHaveLength(1));
    expect(verifies(receiver.received(path)[0], OTHER_SECRET)).toBe(true);
    expectNoSecretInLogs(t);
  });
});

describeWithPostgres('replicas starting together with a new key (needs TEST_DATABASE_URL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('re-encrypt every stored secret once between them, more rows than one batch', async () => {
    const first = await startTestApp({ database, env: keys(KEY_A) });
    await first.close();
    await database.query(
      `INSERT INTO webhooks (id, url, events, secret, active, created_at, updated_at)
       SELECT gen_random_uuid(), 'https://93.184.216.34/' || i, '{*}', 'plain-secret-number-' || i, false, now(), now() FROM generate_series(1, 250) AS i`,
    );
    const replicas = await Promise.all([startTestApp({ database, env: keys(KEY_B) }), startTestApp({ database, env: keys(KEY_B) })]);
    try {
      const rows = await database.query<{ url: string; secret: string }>('SELECT url, secret FROM webhooks');
      expect(rows).toHaveLength(250);
      const box = new SecretBox(KEY_B);
      for (const row of rows) {
        expect(box.isCurrent(row.secret)).toBe(true);
        expect(box.open(row.secret)).toBe(`plain-secret-number-${row.url.split('/').pop()}`);
      }
      const resealed = replicas.map((t) =>
        t.logs
          .map((line) => /^Re-encrypted (\d+) webhook secret/.exec(String(line.msg)))
          .reduce((sum, match) => sum + Number(match?.[1] ?? 0), 0),
      );
      expect(resealed[0] + resealed[1]).toBe(250);
    } finally {
      for (const t of replicas) await t.close();
    }
  });
});

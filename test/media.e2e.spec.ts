import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signPath } from '../src/auth/signed-urls';
import { parsePublicId } from '../src/common/ids';
import { MediaService } from '../src/media/media.service';
import { MediaStore, storageKeyOf } from '../src/media/media-store';
import { channelMessage, channelWebhook, eventually } from './support/channel';
import { TEST_DATABASE_URL } from './support/environment';
import { multipart } from './support/multipart';
import { FakeGraphApi } from './support/fake-graph-api';
import { S3Server } from './support/s3-server';
import { Answer, startTestApp, TestApp } from './support/test-app';

const SESSION_SECRET = 'media-test-session-secret-long-enough';
const PHONE_NUMBER_ID = '106540352242922';

/** A 1x1 PNG, a JPEG header and a GIF: file-type knows each by its first bytes. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]), randomBytes(2000)]);
const GIF = Buffer.concat([Buffer.from('GIF89a'), randomBytes(200)]);

let lastPhone = 14155570000 + Math.floor(Math.random() * 9000);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(['filesystem', 's3'] as const)('media on the %s store', (store) => {
  let graph: FakeGraphApi;
  let s3: S3Server | null = null;
  let mediaDir: string;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    mediaDir = mkdtempSync(join(tmpdir(), 'team-inbox-media-'));
    if (store === 's3') s3 = await S3Server.start();
    t = await startTestApp({
      env: {
        SESSION_SECRET,
        MESSAGING_ACCESS_TOKEN: 'graph-token',
        MESSAGING_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
        MESSAGING_API_BASE_URL: graph.baseUrl,
        MESSAGING_RETRY_SCHEDULE: '50ms,50ms,50ms',
        MEDIA_DOWNLOAD_RETRY_SCHEDULE: '50ms',
        MEDIA_DIR: mediaDir,
        ...(s3?.env ?? {}),
      },
    });
    admin = await t.adminToken();
  });
  afterEach(() => graph.reset());
  afterAll(async () => {
    await t?.close();
    await graph?.close();
    await s3?.close();
    rmSync(mediaDir, { recursive: true, force: true });
  });

  /** A customer sends a media message; answers the webhook's answer and their conversation. */
  async function customerSends(
    type: string,
    payload: Record<string, unknown>,
    options: { timestamp?: number } = {},
  ): Promise<{ answer: Answer; conversationId: string; phone: string }> {
    const from = String((lastPhone += 1));
    const answer = await t.request('POST', '/api/webhooks/messaging', {
      body: channelWebhook({
        contacts: [{ wa_id: from, name: 'Customer' }],
        messages: [channelMessage({ from, type, payload, timestamp: options.timestamp })],
      }),
    });
    const list = await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(`+${from}`)}`, { token: admin });
    return { answer, conversationId: list.body.data[0]?.id as string, phone: `+${from}` };
  }

  const latestMessage = async (conversationId: string) =>
    (await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin })).body.data[0];

  const mediaBecomes = (conversationId: string, status: string) =>
    eventually(async () => {
      const message = await latestMessage(conversationId);
      expect(message.media?.status).toBe(status);
      return { ...message, media: message.media! };
    });

  /** Bytes on success; a refusal's `{error}` otherwise. */
  const fetchMedia = async (url: string, options: { token?: string; headers?: Record<string, string> } = {}) =>
    (await t.request('GET', url, { token: options.token, headers: options.headers })) as Answer<{ error?: string } | undefined>;

  /** Every object the store holds (partial files included). */
  async function storedObjects(): Promise<string[]> {
    if (s3) return s3.keys();
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
    return walk(mediaDir);
  }

  describe('a customer’s media', () => {
    it('is stored with its message at once, pending, and reaches the agent by bearer and by signed URL once downloaded', async () => {
      const image = graph.addMedia(JPEG, 'image/jpeg');
      const release = graph.holdMedia(image.id);
      const { answer, conversationId } = await customerSends('image', {
        id: image.id,
        mime_type: 'image/jpeg',
        sha256: Buffer.from(image.sha256, 'hex').toString('base64'),
        caption: 'my receipt',
      });
      // The webhook answered while the channel still held the download back.
      expect(answer.status).toBe(200);
      await eventually(async () => expect(graph.mediaRequests(image.id)).toHaveLength(1));
      const pending = await latestMessage(conversationId);
      expect(pending).toMatchObject({ type: 'image', text: 'my receipt' });
      expect(pending.media).toEqual({
        id: expect.stringMatching(/^med_[0-9a-f]{32}$/),
        mime_type: 'image/jpeg',
        size: null,
        filename: null,
        status: 'pending',
        url: expect.stringMatching(/^\/api\/v1\/media\/med_[0-9a-f]{32}\?expires=\d+&signature=[\w-]+$/),
      });
      const whilePending = await fetchMedia(`/api/v1/media/${pending.media!.id}`, { token: admin });
      expect(whilePending.status).toBe(409);
      expect(whilePending.body).toEqual({ error: expect.any(String) });

      release();
      const ready = await mediaBecomes(conversationId, 'ready');
      expect(ready.media).toMatchObject({ id: pending.media!.id, mime_type: 'image/jpeg', size: JPEG.length, status: 'ready' });
      expect(graph.mediaRequests(image.id).map((r) => r.authorization)).toEqual(['Bearer graph-token', 'Bearer graph-token']);

      const byBearer = await t.app.inject({
        method: 'GET',
        url: `/api/v1/media/${ready.media.id}`,
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(byBearer.statusCode).toBe(200);
      expect(byBearer.rawPayload.equals(JPEG)).toBe(true);
      expect(byBearer.headers).toMatchObject({
        'content-type': 'image/jpeg',
        'content-length': String(JPEG.length),
        etag: `"${sha256(JPEG)}"`,
        'x-content-type-options': 'nosniff',
        'accept-ranges': 'bytes',
      });
      expect(byBearer.headers['content-security-policy']).toMatch(/sandbox/);
      expect(byBearer.headers['content-disposition']).toMatch(/^inline; /);

      // The signed URL, as a browser's <img src> uses it: no header at all.
      const bySignature = await t.app.inject({ method: 'GET', url: ready.media.url as string });
      expect(bySignature.statusCode).toBe(200);
      expect(bySignature.rawPayload.equals(JPEG)).toBe(true);
      expect((await fetchMedia(`/api/v1/media/${ready.media.id}`)).status).toBe(401);

      const events = (await t.events('message.media')).filter((e) => e.data.message.id === ready.id);
      expect(events.map((e) => e.data)).toEqual([
        {
          message: expect.objectContaining({ id: ready.id, media: expect.objectContaining({ status: 'ready' }) }),
          conversation_id: conversationId,
        },
      ]);
    });

    it('refuses a forged, tampered or expired signature with 401 {error}', async () => {
      const image = graph.addMedia(PNG, 'image/png');
      const { conversationId } = await customerSends('image', { id: image.id, mime_type: 'image/png', sha256: image.sha256 });
      const { media } = await mediaBecomes(conversationId, 'ready');
      expect((await fetchMedia(media.url as string)).status).toBe(200);
      const path = (media.url as string).split('?')[0];
      const expires = /expires=(\d+)/.exec(media.url as string)![1];
      const key = createHmac('sha256', SESSION_SECRET).update('team-inbox signed URLs v1').digest();
      const otherKey = createHmac('sha256', 'another-secret').update('team-inbox signed URLs v1').digest();
      const refused = {
        'a forged signature': signPath(otherKey, path, Number(expires)),
        'a later expiry': (media.url as string).replace(`expires=${expires}`, `expires=${Number(expires) + 3600}`),
        'another media': (media.url as string).replace(path, `/api/v1/media/med_${'0'.repeat(32)}`),
        'no signature': `${path}?expires=${expires}`,
        'an empty signature': `${path}?expires=${expires}&signature=`,
        'an expired one': signPath(key, path, Math.floor(Date.now() / 1000) - 1),
      };
      for (const [what, url] of Object.entries(refused)) {
        const answer = await fetchMedia(url);
        if (answer.status !== 401) throw new Error(`${what}: ${answer.status} ${answer.text}`);
        expect(answer.body).toEqual({ error: expect.any(String) });
      }
      expect((await fetchMedia(refused['an expired one'])).body?.error).toMatch(/expired/);
      // The same key and path, unexpired, is served: the refusals above are about the signature.
      expect((await fetchMedia(signPath(key, path, Math.floor(Date.now() / 1000) + 60))).status).toBe(200);
    });

    it('survives a Graph API that fails the first downloads', async () => {
      const image = graph.addMedia(JPEG, 'image/jpeg');
      const down = { status: 500, body: { error: { message: 'Service temporarily unavailable', code: 2 } } };
      graph.failDownloads(image.id, down, down, { status: 503, body: {} });
      const { conversationId } = await customerSends('image', { id: image.id, mime_type: 'image/jpeg', sha256: image.sha256 });
      const { media } = await mediaBecomes(conversationId, 'ready');
      expect(graph.mediaRequests(image.id).filter((r) => r.path.startsWith('/whatsapp_business/'))).toHaveLength(4);
      const bytes = await t.app.inject({ method: 'GET', url: media.url as string });
      expect(bytes.rawPayload.equals(JPEG)).toBe(true);
    });

    it('retries a download whose bytes do not match the channel’s SHA-256, and keeps only the right bytes', async () => {
      const image = graph.addMedia(JPEG, 'image/jpeg');
      graph.corruptDownloads(image.id, 2);
      const { conversationId } = await customerSends('image', { id: image.id, mime_type: 'image/jpeg', sha256: image.sha256 });
      const { media } = await mediaBecomes(conversationId, 'ready');
      expect(graph.mediaRequests(image.id).filter((r) => r.path.startsWith('/whatsapp_business/'))).toHaveLength(3);
      const bytes = await t.app.inject({ method: 'GET', url: media.url as string });
      expect(sha256(bytes.rawPayload)).toBe(image.sha256);
    });

    it('ends expired when the channel no longer has the media, and answers 410', async () => {
      const image = graph.addMedia(PNG, 'image/png');
      graph.expireMedia(image.id);
      const { conversationId } = await customerSends('image', { id: image.id, mime_type: 'image/png', sha256: image.sha256 });
      const { media } = await mediaBecomes(conversationId, 'expired');
      expect(media.url).toBeNull();
      expect(graph.mediaRequests(image.id)).toHaveLength(1);
      const gone = await fetchMedia(`/api/v1/media/${media.id}`, { token: admin });
      expect(gone.status).toBe(410);
      expect(gone.body).toEqual({ error: expect.stringMatching(/^The media is expired: The channel no longer has this media/) });
      const events = (await t.events('message.media')).filter((e) => e.data.message.media.id === media.id);
      expect(events.map((e) => e.data.message.media.status)).toEqual(['expired']);
    });

    it('keeps retrying while the channel keeps the media, then ends expired', async () => {
      const image = graph.addMedia(PNG, 'image/png');
      const down = { status: 500, body: {} };
      graph.failDownloads(image.id, ...Array.from({ length: 1000 }, () => down));
      // The channel keeps it 7 days from the message's timestamp: six seconds are left.
      const { conversationId } = await customerSends(
        'image',
        { id: image.id, mime_type: 'image/png', sha256: image.sha256 },
        { timestamp: Math.floor(Date.now() / 1000) - 7 * 86_400 + 6 },
      );
      const { media } = await mediaBecomes(conversationId, 'expired');
      expect(graph.mediaRequests(image.id).filter((r) => r.path.startsWith('/whatsapp_business/')).length).toBeGreaterThan(1);
      expect((await fetchMedia(`/api/v1/media/${media.id}`, { token: admin })).status).toBe(410);
    });

    it('answers ranges of a voice note with 206, a range past the end with 416, and If-None-Match with 304', async () => {
      const voice = Buffer.concat([Buffer.from('OggS'), randomBytes(4000)]);
      const audio = graph.addMedia(voice, 'audio/ogg; codecs=opus');
      const { conversationId } = await customerSends('audio', {
        id: audio.id,
        mime_type: 'audio/ogg; codecs=opus',
        sha256: audio.sha256,
        voice: true,
      });
      const { media } = await mediaBecomes(conversationId, 'ready');
      const part = await t.app.inject({ method: 'GET', url: media.url as string, headers: { range: 'bytes=100-199' } });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 100-199/${voice.length}`);
      expect(part.headers['content-length']).toBe('100');
      expect(part.headers['content-type']).toBe('audio/ogg');
      expect(part.rawPayload.equals(voice.subarray(100, 200))).toBe(true);
      const tail = await t.app.inject({ method: 'GET', url: media.url as string, headers: { range: 'bytes=-10' } });
      expect(tail.rawPayload.equals(voice.subarray(-10))).toBe(true);
      const past = await fetchMedia(media.url as string, { headers: { range: `bytes=${voice.length}-` } });
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${voice.length}`);
      expect(past.body).toEqual({ error: expect.any(String) });
      const cached = await fetchMedia(media.url as string, { headers: { 'if-none-match': `"${sha256(voice)}"` } });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe('');
    });

    it('serves a document as an attachment with its file name, and never as a page of the origin', async () => {
      const page = Buffer.from('<html><script>alert(document.cookie)</script></html>');
      // A channel (or a forged unsigned webhook) calling HTML a document.
      const document = graph.addMedia(page, 'text/html');
      const { conversationId } = await customerSends('document', {
        id: document.id,
        mime_type: 'text/html',
        sha256: document.sha256,
        filename: 'Relatório "Q1".html',
      });
      const { media } = await mediaBecomes(conversationId, 'ready');
      expect(media.filename).toBe('Relatório "Q1".html');
      const served = await fetchMedia(media.url as string);
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe('application/octet-stream');
      expect(served.headers['content-disposition']).toBe(
        `attachment; filename="Relat_rio _Q1_.html"; filename*=UTF-8''Relat%C3%B3rio%20%22Q1%22.html`,
      );
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox/);
    });

    it('answers 404 for an unknown media id or one of another kind of id', async () => {
      expect((await fetchMedia(`/api/v1/media/med_${'0'.repeat(32)}`, { token: admin })).status).toBe(404);
      expect((await fetchMedia(`/api/v1/media/msg_${'0'.repeat(32)}`, { token: admin })).status).toBe(404);
    });
  });

  describe('uploads', () => {
    const upload = (bytes: Buffer, filename: string, contentType: string, field = 'file') =>
      t.request('POST', '/api/v1/media', { token: admin, ...multipart(field, filename, contentType, bytes) });

    it('answers 201 with the type read from the bytes: a PNG named .pdf is an image', async () => {
      const answer = await upload(PNG, 'invoice.pdf', 'application/pdf');
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({
        id: expect.stringMatching(/^med_[0-9a-f]{32}$/),
        mime_type: 'image/png',
        size: PNG.length,
        filename: 'invoice.pdf',
        sha256: sha256(PNG),
        created_at: expect.any(String),
      });
      const served = await t.app.inject({
        method: 'GET',
        url: `/api/v1/media/${answer.body.id}`,
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(served.rawPayload.equals(PNG)).toBe(true);
      expect(served.headers['content-type']).toBe('image/png');
    });

    it('refuses a file over its kind’s limit with 413 and keeps nothing of it', async () => {
      const before = await storedObjects();
      const tooLarge = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
      const answer = await upload(tooLarge, 'big.png', 'image/png');
      expect(answer.status).toBe(413);
      expect(answer.body).toEqual({ error: 'The file is larger than WhatsApp takes for an image (5 MB)' });
      expect(await storedObjects()).toEqual(before);
      // Just under the limit is taken.
      expect((await upload(tooLarge.subarray(0, 5 * 1024 * 1024), 'fits.png', 'image/png')).status).toBe(201);
    });

    it('refuses a type the channel does not take with 415, whatever its name says', async () => {
      const gif = await upload(GIF, 'photo.jpg', 'image/jpeg');
      expect(gif.status).toBe(415);
      expect(gif.body.error).toMatch(/^The file is image\/gif, which WhatsApp does not take/);
      const unknown = await upload(randomBytes(3000), 'data.bin', 'application/octet-stream');
      expect(unknown.status).toBe(415);
    });

    it('takes plain text declared as such, and refuses binary bytes declared as text', async () => {
      const text = await upload(Buffer.from('Order 1001: 2 × widgets, shipped ✓\n'), 'notes.txt', 'text/plain');
      expect(text.status).toBe(201);
      expect(text.body.mime_type).toBe('text/plain');
      const binary = await upload(
        Buffer.concat([Buffer.from('text at first'), Buffer.from([0xff, 0xfe, 0x00, 0x01])]),
        'notes.txt',
        'text/plain',
      );
      expect(binary.status).toBe(415);
    });

    it('refuses a body that is not multipart with 415, a missing file field with 400, and an empty file with 400', async () => {
      const json = await t.request('POST', '/api/v1/media', { token: admin, body: { file: 'x' } });
      expect(json.status).toBe(415);
      expect(json.body).toEqual({ error: expect.any(String) });
      expect((await upload(PNG, 'a.png', 'image/png', 'attachment')).status).toBe(400);
      expect((await upload(Buffer.alloc(0), 'empty.png', 'image/png')).status).toBe(400);
    });

    it('refuses a multipart body without parts or its closing boundary with 400, not a 5xx', async () => {
      // Found by the fuzz: the multipart parser failed before any part, and the 500 reached the client.
      const answer = await t.request('POST', '/api/v1/media', {
        token: admin,
        payload: '{"file":"not a multipart body"}',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'The multipart body is malformed or ended before the file did' });
      expect((await upload(PNG, 'a.png', 'image/png')).status).toBe(201);
    });

    it('answers multipart bodies on other routes with 415', async () => {
      const answer = await t.request('POST', '/api/v1/contacts', { token: admin, ...multipart('file', 'a.png', 'image/png', PNG) });
      expect(answer.status).toBe(415);
      expect(answer.body).toEqual({ error: 'Content-Type must be application/json' });
    });
  });

  describe('sending media', () => {
    async function customerWritesText(): Promise<{ id: string; phone: string }> {
      const { conversationId, phone } = await customerSends('text', { body: 'Can you send me the invoice?' });
      return { id: conversationId, phone };
    }
    const send = (conversationId: string, body: unknown) =>
      t.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: admin, body });
    const statusBecomes = (conversationId: string, messageId: string, status: string) =>
      eventually(async () => {
        const thread = await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin });
        const message = (thread.body.data as { id: string; status: string }[]).find((m) => m.id === messageId)!;
        expect(message.status).toBe(status);
        return message;
      });

    it('uploads the bytes to the channel once and sends by the channel’s id', async () => {
      const uploaded = (await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 'photo.jpg', 'image/jpeg', JPEG) }))
        .body;
      const { id, phone } = await customerWritesText();
      const uploadsBefore = graph.mediaUploads.length;
      const first = await send(id, { type: 'image', image: { media_id: uploaded.id, caption: 'Your parcel' } });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        type: 'image',
        text: 'Your parcel',
        status: 'queued',
        media: {
          id: uploaded.id,
          mime_type: 'image/jpeg',
          size: JPEG.length,
          filename: 'photo.jpg',
          status: 'ready',
          url: expect.any(String),
        },
      });
      await statusBecomes(id, first.body.id, 'sent');
      expect(graph.mediaUploads.length - uploadsBefore).toBe(1);
      const received = graph.mediaUploads.at(-1)!;
      expect(received).toMatchObject({
        path: `/${PHONE_NUMBER_ID}/media`,
        authorization: 'Bearer graph-token',
        fields: { messaging_product: 'whatsapp', type: 'image/jpeg' },
        file: { filename: 'photo.jpg', contentType: 'image/jpeg' },
      });
      expect(received.file!.bytes.equals(JPEG)).toBe(true);
      expect(graph.sendsTo(phone).map((r) => r.body)).toEqual([
        expect.objectContaining({ type: 'image', image: { id: received.id, caption: 'Your parcel' } }),
      ]);

      // A second send of the same media goes by the same channel id, without uploading again.
      const second = await send(id, { type: 'image', image: { media_id: uploaded.id } });
      await statusBecomes(id, second.body.id, 'sent');
      expect(graph.mediaUploads.length - uploadsBefore).toBe(1);
      expect(graph.sendsTo(phone)[1].body).toMatchObject({ image: { id: received.id } });
      // message.status events carry the message with its media, as before.
      const statuses = (await t.events('message.status')).filter((e) => e.data.message.id === first.body.id);
      expect(statuses.map((e) => [e.data.message.status, e.data.message.media.id])).toEqual([['sent', uploaded.id]]);
    });

    it('sends a document by media_id with the upload’s file name, and a sticker', async () => {
      const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(500)]);
      const document = (
        await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 'invoice-1001.pdf', 'application/pdf', pdf) })
      ).body;
      expect(document.mime_type).toBe('application/pdf');
      const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 '), randomBytes(100)]);
      const sticker = (await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 's.webp', 'image/webp', webp) })).body;
      expect(sticker.mime_type).toBe('image/webp');
      const { id, phone } = await customerWritesText();
      const doc = await send(id, { type: 'document', document: { media_id: document.id, caption: 'Invoice' } });
      const stick = await send(id, { type: 'sticker', sticker: { media_id: sticker.id } });
      await statusBecomes(id, doc.body.id, 'sent');
      await statusBecomes(id, stick.body.id, 'sent');
      const bodies = graph.sendsTo(phone).map((r) => r.body!);
      expect(bodies).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            type: 'document',
            document: { id: expect.any(String), caption: 'Invoice', filename: 'invoice-1001.pdf' },
          }),
          expect.objectContaining({ type: 'sticker', sticker: { id: expect.any(String) } }),
        ]),
      );
    });

    it('retries an upload the channel fails, like a send', async () => {
      const uploaded = (await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 'p.png', 'image/png', PNG) })).body;
      const { id } = await customerWritesText();
      const uploadsBefore = graph.mediaUploads.length;
      graph.failUploads({ status: 503, body: { error: { message: 'Service temporarily unavailable', code: 2 } } });
      const answer = await send(id, { type: 'image', image: { media_id: uploaded.id } });
      await statusBecomes(id, answer.body.id, 'sent');
      expect(graph.mediaUploads.slice(uploadsBefore).map((upload) => upload.id !== undefined)).toEqual([false, true]);
    });

    it('refuses an unknown media_id and a media of another kind with 422, and link with media_id with 400', async () => {
      const uploaded = (await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 'p.png', 'image/png', PNG) })).body;
      const { id } = await customerWritesText();
      const unknown = await send(id, { type: 'image', image: { media_id: `med_${'0'.repeat(32)}` } });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error).toMatch(/is not a known media/);
      const otherKind = await send(id, { type: 'video', video: { media_id: uploaded.id } });
      expect(otherKind.status).toBe(422);
      expect(otherKind.body).toEqual({ error: 'video.media_id is an image, not a video' });
      const both = await send(id, { type: 'image', image: { media_id: uploaded.id, link: 'https://cdn.example.com/a.png' } });
      expect(both.status).toBe(400);
      const neither = await send(id, { type: 'image', image: { caption: 'x' } });
      expect(neither.status).toBe(400);
      // Positive control: the same upload as an image is sent.
      expect((await send(id, { type: 'image', image: { media_id: uploaded.id } })).status).toBe(201);
    });

    it('deletes an upload no message was sent with, bytes included, once MEDIA_UPLOAD_TTL has passed, and keeps the sent ones', async () => {
      const unsent = (await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 'u.png', 'image/png', PNG) })).body;
      const sent = (await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 's.jpg', 'image/jpeg', JPEG) })).body;
      const { id } = await customerWritesText();
      expect((await send(id, { type: 'image', image: { media_id: sent.id } })).status).toBe(201);
      // Naming an upload in a text sends nothing with it: it stays unsent (no search of texts for ids).
      expect((await send(id, { type: 'text', text: `see ${unsent.id}` })).status).toBe(201);
      const cleanup = t.app.get(MediaService);
      const storedBytes = (mediaId: string) =>
        t.app
          .get(MediaStore)
          .get(storageKeyOf(parsePublicId('med', mediaId)!))
          .then(
            (stream) => (stream.destroy(), true),
            () => false,
          );

      // Younger than MEDIA_UPLOAD_TTL (24 h): kept.
      await cleanup.deleteUnsentUploads(new Date());
      expect((await fetchMedia(`/api/v1/media/${unsent.id}`, { token: admin })).status).toBe(200);

      expect(await cleanup.deleteUnsentUploads(new Date(Date.now() + 24 * 3_600_000 + 60_000))).toBeGreaterThanOrEqual(1);
      expect((await fetchMedia(`/api/v1/media/${unsent.id}`, { token: admin })).status).toBe(404);
      expect(await storedBytes(unsent.id)).toBe(false);
      expect((await fetchMedia(`/api/v1/media/${sent.id}`, { token: admin })).status).toBe(200);
      expect(await storedBytes(sent.id)).toBe(true);
    });
  });
});

describe('media without a WhatsApp account (the sandbox channel)', () => {
  let t: TestApp;
  let admin: string;
  let sandboxDir: string;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'team-inbox-sandbox-'));
    // On PostgreSQL DATA_DIR holds only local files (the sandbox's media among them); the embedded engine keeps its own.
    t = await startTestApp({
      env: {
        MEDIA_DOWNLOAD_RETRY_SCHEDULE: '50ms',
        MEDIA_DIR: join(dataDir, 'media'),
        ...(TEST_DATABASE_URL ? { DATA_DIR: dataDir } : {}),
      },
    });
    admin = await t.adminToken();
    sandboxDir = join(t.config.dataDir, 'sandbox-media');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const customerSends = async (mediaId: string) => {
    const from = String((lastPhone += 1));
    await t.request('POST', '/api/webhooks/messaging', {
      body: channelWebhook({ messages: [channelMessage({ from, type: 'image', payload: { id: mediaId, mime_type: 'image/png' } })] }),
    });
    const list = await t.request('GET', `/api/v1/conversations?q=${encodeURIComponent(`+${from}`)}`, { token: admin });
    return list.body.data[0].id as string;
  };

  it('downloads a customer’s media from DATA_DIR/sandbox-media, and fails one it does not hold', async () => {
    mkdirSync(sandboxDir, { recursive: true });
    writeFileSync(join(sandboxDir, 'sandbox-test-1'), PNG);
    writeFileSync(
      join(sandboxDir, 'sandbox-test-1.json'),
      JSON.stringify({ mime_type: 'image/png', sha256: sha256(PNG), file_size: PNG.length }),
    );
    const held = await customerSends('sandbox-test-1');
    const missing = await customerSends('sandbox-test-404');
    const statusOf = async (conversationId: string) =>
      (await t.request('GET', `/api/v1/conversations/${conversationId}/messages`, { token: admin })).body.data[0].media;
    const ready = await eventually(async () => {
      const media = await statusOf(held);
      expect(media?.status).toBe('ready');
      return media!;
    });
    const served = await t.app.inject({ method: 'GET', url: ready.url as string });
    expect(served.rawPayload.equals(PNG)).toBe(true);
    const failed = await eventually(async () => {
      const media = await statusOf(missing);
      expect(media?.status).toBe('failed');
      return media!;
    });
    const gone = await t.request('GET', `/api/v1/media/${failed.id}`, { token: admin });
    expect(gone.status).toBe(410);
    expect(gone.body?.error).toMatch(/The sandbox channel has no media "sandbox-test-404"/);
  });
});

describe('the quota of unsent uploads (MEDIA_UPLOAD_QUOTA_MB)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { MEDIA_UPLOAD_QUOTA_MB: '1' } });
  });
  afterAll(() => t.close());

  /** A PDF of exactly `bytes`. */
  const document = (bytes: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(bytes - 9)]);
  const upload = (token: string, bytes: Buffer) =>
    t.request('POST', '/api/v1/media', { token, ...multipart('file', 'big.pdf', 'application/pdf', bytes) });

  it("refuses an upload past the uploader's quota with 413, counting only their unsent uploads", async () => {
    const agent = await t.createUser();
    expect((await upload(agent.token, document(600_000))).status).toBe(201);
    const refused = await upload(agent.token, document(600_000));
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatch(/^Your uploads not yet sent would take more than your 1 MB \(MEDIA_UPLOAD_QUOTA_MB\)/);
    // Another user has their own quota.
    expect((await upload((await t.createUser()).token, document(600_000))).status).toBe(201);
  });

  it('refuses at once, without reading the file, when the quota is already used up', async () => {
    const agent = await t.createUser();
    expect((await upload(agent.token, document(1024 * 1024))).status).toBe(201);
    const refused = await upload(agent.token, document(100));
    expect(refused.status).toBe(413);
    expect(await t.sql(`SELECT count(*)::int AS n FROM media WHERE uploaded_by = $1`, [parsePublicId('user', agent.id)])).toEqual([
      { n: 1 },
    ]);
  });
});

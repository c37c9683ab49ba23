import { parsePublicId } from '../src/common/ids';
import { eventually } from './support/channel';
import { messageWebhook } from './support/channel-fixtures';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { multipart } from './support/multipart';
import { startTestApp, TestApp } from './support/test-app';

type Json = Record<string, unknown>;

const buttons = (): Json => ({
  type: 'button',
  header: { type: 'text', text: 'Order A-1001' },
  body: { text: 'What can we do for you?' },
  footer: { text: 'Acme support' },
  action: {
    buttons: [
      { type: 'reply', reply: { id: 'track', title: 'Track order' } },
      { type: 'reply', reply: { id: 'agent', title: 'Talk to an agent' } },
    ],
  },
});
const branches = (): Json => ({
  type: 'list',
  header: { type: 'text', text: 'Our branches' },
  body: { text: 'Which branch is nearest to you?' },
  action: {
    button: 'Choose a branch',
    sections: [
      {
        title: 'North',
        rows: [
          { id: 'hamburg', title: 'Hamburg', description: 'Mönckebergstraße 7' },
          { id: 'bremen', title: 'Bremen' },
        ],
      },
      { title: 'South', rows: [{ id: 'munich', title: 'Munich', description: 'Marienplatz 1' }] },
    ],
  },
});
const trackingLink = (): Json => ({
  type: 'cta_url',
  header: { type: 'image', image: { link: 'https://cdn.example.com/parcel.png' } },
  body: { text: 'Your parcel is on its way.' },
  action: { name: 'cta_url', parameters: { display_text: 'Track it', url: 'https://track.example.com/A-1001' } },
});
const returnFlow = (): Json => ({
  type: 'flow',
  body: { text: 'Tell us what to return and we will send a label.' },
  action: {
    name: 'flow',
    parameters: {
      flow_message_version: '3',
      flow_token: 'return-A-1001',
      flow_id: '1234567890123456',
      flow_cta: 'Start a return',
      mode: 'published',
      flow_action: 'navigate',
      flow_action_payload: { screen: 'RETURN_ITEMS', data: { order: 'A-1001' } },
    },
  },
});

/** Sets `path` (dots and [n]) of a copy of `value` to `replacement`; undefined removes it. */
function withField(value: Json, path: string, replacement: unknown): Json {
  const copy = structuredClone(value);
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let at: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  if (replacement === undefined) delete at[keys.at(-1)!];
  else at[keys.at(-1)!] = replacement;
  return copy;
}

describe('interactive messages and presence', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({ env: { ...graph.channelEnv, MESSAGING_RETRY_SCHEDULE: '50ms' } });
    admin = await t.adminToken();
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const send = (conversationId: string, interactive: unknown) =>
    t.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: admin, body: { type: 'interactive', interactive } });

  describe.each([
    ['reply buttons', buttons, 'What can we do for you?'],
    ['a list', branches, 'Which branch is nearest to you?'],
    ['a link button', trackingLink, 'Your parcel is on its way.'],
    ['a flow', returnFlow, 'Tell us what to return and we will send a label.'],
  ])('%s', (_kind, payload, body) => {
    it('reaches the channel exactly as written, and is stored with the body as its text and the payload as its content', async () => {
      const { id, phone } = await customerWrites(t);
      const answer = await send(id, payload());
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ type: 'interactive', text: body, content: payload(), status: 'queued' });
      await eventually(async () => {
        const [message] = (await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: admin })).body.data;
        expect(message).toMatchObject({ id: answer.body.id, status: 'sent' });
      });
      const [request] = graph.sendsTo(phone);
      expect(request.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: phone.slice(1),
        type: 'interactive',
        interactive: payload(),
      });
    });
  });

  it('sends a flow without a version as version 3, which the channel requires, and a data_exchange flow without a screen', async () => {
    const { id, phone } = await customerWrites(t);
    const unversioned = withField(returnFlow(), 'action.parameters.flow_message_version', undefined);
    const exchange = withField(
      withField(returnFlow(), 'action.parameters.flow_action', 'data_exchange'),
      'action.parameters.flow_action_payload',
      undefined,
    );
    expect((await send(id, unversioned)).status).toBe(201);
    expect((await send(id, exchange)).status).toBe(201);
    await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(2));
    // The two sends run at once: told apart by their flow_action, not by the order they arrived in.
    const parameters = graph.sendsTo(phone).map((r) => ((r.body?.interactive as Json).action as { parameters: Json }).parameters);
    const navigating = parameters.find((p) => p.flow_action === 'navigate');
    const exchanging = parameters.find((p) => p.flow_action === 'data_exchange');
    expect(navigating).toEqual({ ...(returnFlow().action as { parameters: Json }).parameters, flow_message_version: '3' });
    expect(exchanging).toMatchObject({ flow_message_version: '3' });
    expect(exchanging!.flow_action_payload).toBeUndefined();
    await eventually(async () => {
      const thread = (await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: admin })).body.data;
      expect(thread.map((m) => m.status)).toEqual(['sent', 'sent', expect.any(String)]);
    });
  });

  it('refuses a media header naming no media with 422, naming the header', async () => {
    const { id } = await customerWrites(t);
    const answer = await send(
      id,
      withField(buttons(), 'header', { type: 'image', image: { media_id: 'med_0000000000007000800000000000000a' } }),
    );
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: 'interactive.header.image.media_id "med_0000000000007000800000000000000a" is not a known media' });
  });

  it("sends a header image from one of our uploads by the channel's media id", async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const uploaded = await t.request('POST', '/api/v1/media', { token: admin, ...multipart('file', 'parcel.png', 'image/png', png) });
    expect(uploaded.status).toBe(201);
    const { id, phone } = await customerWrites(t);
    const payload = withField(buttons(), 'header', { type: 'image', image: { media_id: uploaded.body.id } });
    const answer = await send(id, payload);
    expect(answer.status).toBe(201);
    expect(answer.body.media).toMatchObject({ id: uploaded.body.id });
    await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(1));
    const sent = graph.sendsTo(phone)[0].body as { interactive: Json };
    expect(graph.mediaUploads.at(-1)!.file?.bytes.equals(png)).toBe(true);
    expect(sent.interactive.header).toEqual({ type: 'image', image: { id: expect.stringMatching(/\S/) } });
    expect(sent.interactive.body).toEqual(payload.body);
  });

  describe("refuses with a 400 naming the field, before anything is queued, what the channel's limits refuse", () => {
    const tooLong = (n: number) => 'x'.repeat(n + 1);
    const row = (i: number) => ({ id: `row-${i}`, title: `Row ${i}` });
    it.each<[string, () => Json, string]>([
      ['an unknown kind', () => withField(buttons(), 'type', 'carousel'), 'interactive.type must be one of button, list, cta_url, flow'],
      ['no body', () => withField(buttons(), 'body', undefined), 'interactive.body must be an object'],
      [
        'a body over 1024',
        () => withField(buttons(), 'body.text', tooLong(1024)),
        'interactive.body.text must be at most 1024 characters, not 1025',
      ],
      [
        'a header over 60',
        () => withField(buttons(), 'header.text', tooLong(60)),
        'interactive.header.text must be at most 60 characters, not 61',
      ],
      [
        'a footer over 60',
        () => withField(buttons(), 'footer.text', tooLong(60)),
        'interactive.footer.text must be at most 60 characters, not 61',
      ],
      [
        'a media header on a list',
        () => withField(branches(), 'header', { type: 'image', image: { link: 'https://cdn.example.com/a.png' } }),
        'interactive.header.type must be one of text',
      ],
      [
        'a media header with both link and media_id',
        () => withField(buttons(), 'header', { type: 'image', image: { link: 'https://cdn.example.com/a.png', media_id: 'med_x' } }),
        'interactive.header.image takes either link or media_id',
      ],
      ['no buttons', () => withField(buttons(), 'action.buttons', []), 'interactive.action.buttons must be a non-empty array'],
      [
        'four buttons',
        () =>
          withField(
            buttons(),
            'action.buttons',
            [1, 2, 3, 4].map((n) => ({ type: 'reply', reply: { id: `b${n}`, title: `B${n}` } })),
          ),
        'interactive.action.buttons must have at most 3 items, not 4',
      ],
      [
        'a button title over 20',
        () => withField(buttons(), 'action.buttons[1].reply.title', tooLong(20)),
        'interactive.action.buttons[1].reply.title must be at most 20 characters, not 21',
      ],
      [
        'a button id over 256',
        () => withField(buttons(), 'action.buttons[0].reply.id', tooLong(256)),
        'interactive.action.buttons[0].reply.id must be at most 256 characters, not 257',
      ],
      [
        'two buttons with one id',
        () => withField(buttons(), 'action.buttons[1].reply.id', 'track'),
        "interactive.action.buttons[1].reply.id repeats another button's id",
      ],
      [
        'a list button over 20',
        () => withField(branches(), 'action.button', tooLong(20)),
        'interactive.action.button must be at most 20 characters, not 21',
      ],
      [
        'eleven sections',
        () =>
          withField(
            branches(),
            'action.sections',
            [...Array(11).keys()].map((i) => ({ title: `S${i}`, rows: [row(i)] })),
          ),
        'interactive.action.sections must have at most 10 items, not 11',
      ],
      [
        'eleven rows in all',
        () =>
          withField(branches(), 'action.sections', [
            { title: 'A', rows: [...Array(6).keys()].map(row) },
            { title: 'B', rows: [...Array(5).keys()].map((i) => row(i + 6)) },
          ]),
        'interactive.action.sections must have at most 10 rows in all, not 11',
      ],
      [
        'a row title over 24',
        () => withField(branches(), 'action.sections[0].rows[1].title', tooLong(24)),
        'interactive.action.sections[0].rows[1].title must be at most 24 characters, not 25',
      ],
      [
        'a row description over 72',
        () => withField(branches(), 'action.sections[1].rows[0].description', tooLong(72)),
        'interactive.action.sections[1].rows[0].description must be at most 72 characters, not 73',
      ],
      [
        'an untitled section among several',
        () => withField(branches(), 'action.sections[1].title', undefined),
        'interactive.action.sections[1].title must be a non-empty string',
      ],
      [
        'two rows with one id',
        () => withField(branches(), 'action.sections[1].rows[0].id', 'hamburg'),
        "interactive.action.sections[1].rows[0].id repeats another row's id",
      ],
      [
        'a link button over 20',
        () => withField(trackingLink(), 'action.parameters.display_text', tooLong(20)),
        'interactive.action.parameters.display_text must be at most 20 characters, not 21',
      ],
      [
        'a link that is not https',
        () => withField(trackingLink(), 'action.parameters.url', 'http://track.example.com/A-1001'),
        'interactive.action.parameters.url must be an https URL',
      ],
      [
        'a flow without its id or name',
        () => withField(returnFlow(), 'action.parameters.flow_id', undefined),
        'interactive.action.parameters takes either flow_id or flow_name',
      ],
      [
        'a flow button over 20',
        () => withField(returnFlow(), 'action.parameters.flow_cta', tooLong(20)),
        'interactive.action.parameters.flow_cta must be at most 20 characters, not 21',
      ],
      [
        'a flow mode the channel does not know',
        () => withField(returnFlow(), 'action.parameters.mode', 'preview'),
        'interactive.action.parameters.mode must be one of draft, published',
      ],
      [
        'a navigating flow without its first screen',
        () => withField(returnFlow(), 'action.parameters.flow_action_payload', undefined),
        'interactive.action.parameters.flow_action_payload must be an object',
      ],
      [
        'a flow with empty data',
        () => withField(returnFlow(), 'action.parameters.flow_action_payload.data', {}),
        'interactive.action.parameters.flow_action_payload.data must not be empty (leave it out instead)',
      ],
      [
        'an emoji in a flow button',
        () => withField(returnFlow(), 'action.parameters.flow_cta', 'Return 📦'),
        'interactive.action.parameters.flow_cta must not contain emoji',
      ],
      [
        'a button id with spaces around it',
        () => withField(buttons(), 'action.buttons[0].reply.id', ' track '),
        'interactive.action.buttons[0].reply.id must not start or end with spaces',
      ],
      [
        'a link to a host that is no public name',
        () => withField(trackingLink(), 'action.parameters.url', 'https://tracking'),
        'interactive.action.parameters.url must be an https URL',
      ],
      [
        'a field the channel does not take',
        () => withField(buttons(), 'action.sections', []),
        'interactive.action.sections is not a field the channel takes here',
      ],
    ])('%s', async (_case, payload, error) => {
      const { id, phone } = await customerWrites(t);
      const answer = await send(id, payload());
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error });
      const [{ count }] = await t.sql<{ count: string }>(
        "SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN contacts ct ON ct.id = c.contact_id WHERE ct.phone = $1 AND m.direction = 'outbound'",
        [phone],
      );
      expect(count).toBe('0');
    });

    it('and takes the largest of each the channel allows', async () => {
      const { id } = await customerWrites(t);
      const largest = withField(
        withField(
          buttons(),
          'action.buttons',
          [1, 2, 3].map((n) => ({ type: 'reply', reply: { id: `${n}`.repeat(256), title: `${n}`.repeat(20) } })),
        ),
        'body.text',
        'é'.repeat(1024),
      );
      const tenRows = withField(branches(), 'action.sections', [{ title: 'x'.repeat(24), rows: [...Array(10).keys()].map(row) }]);
      const sent = [await send(id, largest), await send(id, tenRows)];
      expect(sent.map((answer) => answer.status)).toEqual([201, 201]);
      // The channel took both (it answers a body it refuses with #131009, which fails the message).
      await eventually(async () => {
        const thread = (await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: admin })).body.data;
        expect(thread.filter((m) => m.type === 'interactive').map((m) => m.status)).toEqual(['sent', 'sent']);
      });
    });
  });

  describe('answers tied to their question', () => {
    /** Sends `payload` to a new customer and answers the conversation, the message and the wamid the channel gave it. */
    const asked = async (payload: Json) => {
      const { id, phone } = await customerWrites(t);
      const question = (await send(id, payload)).body;
      const wamid = await eventually(async () => {
        const [row] = await t.sql<{ channel_message_id: string | null }>('SELECT channel_message_id FROM messages WHERE id = $1', [
          parsePublicId('msg', question.id),
        ]);
        expect(row.channel_message_id).toEqual(expect.any(String));
        return row.channel_message_id!;
      });
      return { id, from: phone.slice(1), question, wamid };
    };
    const answers = async (from: string, wamid: string, interactive: Json) => {
      const delivered = await t.request('POST', '/api/webhooks/messaging', {
        body: messageWebhook(from, { type: 'interactive', context: { from: '15550783881', id: wamid }, interactive }),
      });
      expect(delivered.status).toBe(200);
    };
    const newest = async (conversationId: string) =>
      (await t.request('GET', `/api/v1/conversations/${conversationId}/messages?limit=1`, { token: admin })).body.data[0] as Json;

    it.each<[string, () => Json, Json, string]>([
      ['a button', buttons, { type: 'button_reply', button_reply: { id: 'agent', title: 'Talk to an agent' } }, 'Talk to an agent'],
      [
        'a list row',
        branches,
        { type: 'list_reply', list_reply: { id: 'munich', title: 'Munich', description: 'Marienplatz 1' } },
        'Munich',
      ],
      [
        'a flow',
        returnFlow,
        { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: '{"flow_token":"return-A-1001","reason":"broken"}' } },
        'Sent',
      ],
    ])("the customer's choice of %s replies to the message that offered it", async (_kind, payload, interactive, text) => {
      const { id, from, question, wamid } = await asked(payload());
      await answers(from, wamid, interactive);
      expect(await newest(id)).toMatchObject({ direction: 'inbound', type: 'interactive', text, reply_to: question.id });
    });

    it("a flow's answers are parsed into content.response, shown beside the form's raw response_json", async () => {
      const { id, from, wamid } = await asked(returnFlow());
      const responseJson = '{"flow_token":"return-A-1001","items":["mug","plate"],"reason":"broken"}';
      await answers(from, wamid, { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: responseJson } });
      expect((await newest(id)).content).toEqual({
        type: 'nfm_reply',
        nfm_reply: { name: 'flow', body: 'Sent', response_json: responseJson },
        response: { flow_token: 'return-A-1001', items: ['mug', 'plate'], reason: 'broken' },
        context: { from: '15550783881', id: wamid },
      });
    });

    it('an answer quoting a message the service does not know replies to nothing', async () => {
      const { id, from } = await asked(buttons());
      await answers(from, 'wamid.unknown-question', { type: 'button_reply', button_reply: { id: 'track', title: 'Track order' } });
      expect(await newest(id)).toMatchObject({ type: 'interactive', text: 'Track order', reply_to: null });
    });
  });

  it("is refused outside the customer's 24-hour window like any free-form message", async () => {
    const { id } = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 24 * 3600 - 60 });
    const answer = await send(id, buttons());
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: "The customer's last message is more than 24 hours old: only template messages can be sent" });
    const { id: inside } = await customerWrites(t);
    expect((await send(inside, buttons())).status).toBe(201);
  });

  it.each<[unknown, string]>([
    [null, 'interactive should not be null or undefined'],
    ['buttons', 'interactive must be an object'],
    [[], 'interactive must be an object'],
    [{}, 'interactive.type must be one of button, list, cta_url, flow'],
  ])('refuses interactive %j with 400 naming it', async (interactive, error) => {
    const { id } = await customerWrites(t);
    const answer = await send(id, interactive);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error });
  });

  it('is refused without its payload, and its payload with another type', async () => {
    const { id } = await customerWrites(t);
    expect((await t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'interactive' } })).body).toEqual(
      {
        error: 'interactive should not be null or undefined',
      },
    );
    const stray = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
      token: admin,
      body: { type: 'text', text: 'Hi', interactive: buttons() },
    });
    expect(stray.status).toBe(422);
    expect(stray.body).toEqual({ error: 'interactive does not go with type text' });
  });

  describe('"typing…" shown to the customer', () => {
    const typing = (conversationId: string, token = admin) =>
      t.request('POST', `/api/v1/conversations/${conversationId}/typing`, { token });
    /** The channel id of the customer's newest message in the conversation. */
    const newestInboundWamid = async (conversationId: string) =>
      (
        await t.sql<{ channel_message_id: string }>(
          "SELECT channel_message_id FROM messages WHERE conversation_id = $1 AND direction = 'inbound' ORDER BY created_at DESC LIMIT 1",
          [parsePublicId('conv', conversationId)],
        )
      )[0].channel_message_id;

    it("answers 202 and asks the channel to show it on the customer's newest message", async () => {
      const { id, phone } = await customerWrites(t, { text: 'Hello?' });
      await customerWrites(t, { phone: phone.slice(1), text: 'Anyone?' });
      const wamid = await newestInboundWamid(id);
      const answer = await typing(id);
      expect(answer.status).toBe(202);
      expect(answer.text).toBe('');
      await eventually(async () => expect(graph.typingIndicators(wamid)).toHaveLength(1));
      expect(graph.typingIndicators(wamid)[0].body).toEqual({
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: wamid,
        typing_indicator: { type: 'text' },
      });
    });

    it('answers 204 and sends nothing within 20 seconds of the last time, and shows it again after', async () => {
      const { id } = await customerWrites(t);
      const wamid = await newestInboundWamid(id);
      expect((await typing(id)).status).toBe(202);
      expect((await typing(id)).status).toBe(204);
      expect((await typing(id)).status).toBe(204);
      await t.sql("UPDATE conversations SET typing_shown_at = now() - interval '21 seconds' WHERE id = $1", [parsePublicId('conv', id)]);
      expect((await typing(id)).status).toBe(202);
      await eventually(async () => expect(graph.typingIndicators(wamid)).toHaveLength(2));
    });

    it('answers 204 outside the 24-hour window, where only a template can be sent', async () => {
      const { id } = await customerWrites(t, { timestamp: Math.floor(Date.now() / 1000) - 24 * 3600 - 60 });
      const wamid = await newestInboundWamid(id);
      expect((await typing(id)).status).toBe(204);
      const { id: inside } = await customerWrites(t);
      expect((await typing(inside)).status).toBe(202);
      expect(graph.typingIndicators(wamid)).toHaveLength(0);
    });

    it('answers 204 for a blocked customer, whom the channel would not show it', async () => {
      const { id, phone } = await customerWrites(t);
      await t.sql('UPDATE contacts SET blocked_at = now() WHERE phone = $1', [phone]);
      expect((await typing(id)).status).toBe(204);
      await t.sql('UPDATE contacts SET blocked_at = NULL WHERE phone = $1', [phone]);
      expect((await typing(id)).status).toBe(202);
    });

    it('answers 404 for an unknown conversation, and for an agent of another inbox', async () => {
      expect((await typing('conv_0000000000007000800000000000000a')).status).toBe(404);
      const { id } = await customerWrites(t);
      const other = await t.request('POST', '/api/v1/inboxes', {
        token: admin,
        body: { name: 'Other number', phone_number_id: '500000000000003', access_token: 'other-token' },
      });
      const outsider = await t.createUser({ role: 'agent', inbox_ids: [other.body.id] });
      expect((await typing(id, outsider.token)).status).toBe(404);
      const member = await t.createUser({ role: 'agent' });
      expect((await typing(id, member.token)).status).toBe(202);
    });
  });
});

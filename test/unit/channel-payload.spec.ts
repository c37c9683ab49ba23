import { parseChannelWebhook } from '../../src/inbound/channel-payload';

const body = (value: Record<string, unknown>, field = 'messages') => ({
  object: 'whatsapp_business_account',
  entry: [{ id: '1', changes: [{ field, value }] }],
});
const at = new Date('2026-11-22T12:00:00Z');

describe('parseChannelWebhook', () => {
  it('reads a text message with the profile name, an E.164 phone and the channel timestamp', () => {
    const parsed = parseChannelWebhook(
      body({
        contacts: [{ wa_id: '16315551234', profile: { name: 'Maria' } }],
        messages: [{ from: '16315551234', id: 'wamid.1', timestamp: '1763812800', type: 'text', text: { body: 'Hi' } }],
      }),
      at,
    );
    expect(parsed).toEqual({
      messages: [
        {
          phone: '+16315551234',
          profileName: 'Maria',
          message: {
            channelMessageId: 'wamid.1',
            type: 'text',
            text: 'Hi',
            content: null,
            sentAt: new Date(1763812800 * 1000),
            media: null,
          },
        },
      ],
      statuses: [],
      ignored: [],
    });
  });

  it('reads the media of a media message: what to download, and what the channel says of it', () => {
    const document = {
      id: '1037543291543636',
      mime_type: 'application/pdf',
      sha256: 'tT0eGqn0nGUlOGw8yU3kwoaBzRpSkiNf4hlCnYtx+Pw=',
      filename: 'invoice.pdf',
      caption: 'Invoice',
    };
    const parsed = parseChannelWebhook(
      body({ messages: [{ from: '16315551234', id: 'wamid.d', timestamp: '1', type: 'document', document }] }),
      at,
    );
    expect(parsed.messages[0].message).toMatchObject({
      type: 'document',
      text: 'Invoice',
      content: document,
      media: {
        kind: 'document',
        mimeType: 'application/pdf',
        channelMediaId: '1037543291543636',
        channelSha256: document.sha256,
        filename: 'invoice.pdf',
      },
    });
  });

  it('records no media for a media message without an id', () => {
    const parsed = parseChannelWebhook(
      body({ messages: [{ from: '16315551234', id: 'wamid.e', timestamp: '1', type: 'image', image: { caption: 'x' } }] }),
      at,
    );
    expect(parsed.messages[0].message.media).toBeNull();
  });

  it('keeps the context of a reply to an earlier message', () => {
    const parsed = parseChannelWebhook(
      body({
        messages: [
          {
            from: '16315551234',
            id: 'wamid.2',
            timestamp: '1',
            type: 'text',
            text: { body: 'this one' },
            context: { from: '15550000000', id: 'wamid.0' },
          },
        ],
      }),
      at,
    );
    expect(parsed.messages[0].message.content).toEqual({ context: { from: '15550000000', id: 'wamid.0' } });
  });

  it('uses the time of receipt when the timestamp is missing', () => {
    const parsed = parseChannelWebhook(body({ messages: [{ from: '16315551234', id: 'wamid.3', type: 'text', text: { body: 'x' } }] }), at);
    expect(parsed.messages[0].message.sentAt).toEqual(at);
  });

  it('reads statuses, with the error text of a failed one', () => {
    const parsed = parseChannelWebhook(
      body({
        statuses: [
          { id: 'wamid.9', status: 'delivered', timestamp: '2' },
          {
            id: 'wamid.8',
            status: 'failed',
            timestamp: '3',
            errors: [{ code: 131047, title: 'Re-engagement message', error_data: { details: 'More than 24 hours' } }],
          },
        ],
      }),
      at,
    );
    expect(parsed.statuses).toEqual([
      { channelMessageId: 'wamid.9', status: 'delivered', error: null, at: new Date(2000) },
      { channelMessageId: 'wamid.8', status: 'failed', error: '(#131047) Re-engagement message: More than 24 hours', at: new Date(3000) },
    ]);
  });

  it.each([
    ['a body that is not an object', 'nope'],
    ['a body without entries', { object: 'x' }],
    ['another field', body({ event: 'x' }, 'account_update')],
    ['a message without a sender', body({ messages: [{ id: 'wamid.1', type: 'text' }] })],
    ['a message from something that is not a phone', body({ messages: [{ from: 'abc', id: 'wamid.1', type: 'text' }] })],
    ['a status it does not know', body({ statuses: [{ id: 'wamid.1', status: 'deleted' }] })],
  ])('ignores %s without throwing, and says so', (_, payload) => {
    const parsed = parseChannelWebhook(payload, at);
    expect(parsed.messages).toEqual([]);
    expect(parsed.statuses).toEqual([]);
    expect(parsed.ignored).toHaveLength(1);
  });

  it('answers every string storable: NUL and unpaired surrogates become U+FFFD, in the text and the content', () => {
    const parsed = parseChannelWebhook(
      body({
        contacts: [{ wa_id: '16315551234', profile: { name: 'Ana\u0000' } }],
        messages: [
          { from: '16315551234', id: 'wamid.n', timestamp: '1', type: 'image', image: { id: 'm', caption: 'a\u0000b', note: '\ud800' } },
        ],
      }),
      at,
    );
    expect(parsed.messages[0]).toMatchObject({
      profileName: 'Ana\uFFFD',
      message: { text: 'a\uFFFDb', content: { id: 'm', caption: 'a\uFFFDb', note: '\uFFFD' } },
    });
  });

  it.each([['1e300'], ['Infinity'], [1e20]])('takes the time received for a timestamp no Date can hold (%s)', (timestamp) => {
    const parsed = parseChannelWebhook(
      body({ messages: [{ from: '16315551234', id: 'wamid.t', timestamp, type: 'text', text: { body: 'x' } }] }),
      at,
    );
    expect(parsed.messages[0].message.sentAt).toEqual(at);
  });

  it('acknowledges a change whose field is any JSON value, even an object with a toString key, without throwing', () => {
    const body = {
      entry: [
        {
          changes: [
            { field: { toString: [1], valueOf: 'x' }, value: {} },
            { field: 'account_update', value: {} },
          ],
        },
      ],
    };
    const parsed = parseChannelWebhook(body);
    expect(parsed.messages).toEqual([]);
    expect(parsed.ignored).toEqual(['a change of field {"toString":[1],"valueOf":"x"}', 'a change of field "account_update"']);
  });
});

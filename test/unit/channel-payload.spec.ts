import { messagesWebhook, webhookBody } from '../../scripts/lib/channel-webhook';
import { changeSourcesOf, parseChannelWebhook } from '../../src/inbound/channel-payload';

const body = (value: Record<string, unknown>, field = 'messages') => webhookBody({ field, value });
const at = new Date('2026-11-22T12:00:00Z');

describe('changeSourcesOf', () => {
  it('names the business number of a messages change and the business account of a change about none, each once', () => {
    const messages = messagesWebhook({ messages: [] }, { phoneNumberId: '106540352242922' });
    const template = webhookBody({ field: 'message_template_status_update', value: { event: 'APPROVED' } }, { businessAccountId: '555' });
    const both = { entry: [...(messages.entry as unknown[]), ...(template.entry as unknown[]), ...(messages.entry as unknown[])] };
    expect(changeSourcesOf(both)).toEqual([
      { phoneNumberId: '106540352242922', businessAccountId: null },
      { phoneNumberId: null, businessAccountId: '555' },
    ]);
  });

  it('checks a template change with its entry’s account, whatever number it names, and a messages change naming no number with the default’s', () => {
    const template = webhookBody(
      { field: 'template_category_update', value: { metadata: { phone_number_id: '111' }, new_category: 'UTILITY' } },
      { businessAccountId: '222' },
    );
    expect(changeSourcesOf(template)).toEqual([{ phoneNumberId: null, businessAccountId: '222' }]);
    const unnumbered = webhookBody({ field: 'messages', value: { messages: [] } }, { businessAccountId: '999' });
    expect(changeSourcesOf(unnumbered)).toEqual([{ phoneNumberId: null, businessAccountId: null }]);
  });

  it('answers one source naming nothing for a body without changes', () => {
    expect(changeSourcesOf({})).toEqual([{ phoneNumberId: null, businessAccountId: null }]);
    expect(changeSourcesOf({ entry: [{ changes: [] }] })).toEqual([{ phoneNumberId: null, businessAccountId: null }]);
  });
});

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
          customer: { phone: '+16315551234', userId: null, username: null, profileName: 'Maria' },
          phoneNumberId: null,
          message: {
            channelMessageId: 'wamid.1',
            type: 'text',
            text: 'Hi',
            content: null,
            sentAt: new Date(1763812800 * 1000),
            quotedChannelMessageId: null,
            referral: null,
            media: null,
          },
        },
      ],
      phoneNumberIds: [],
      statuses: [],
      errors: [],
      templates: [],
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

  it("parses a Flow answer's response_json into content.response, and keeps one that does not parse only as sent", () => {
    const flowAnswer = (responseJson: unknown) =>
      parseChannelWebhook(
        body({
          messages: [
            {
              from: '16315551234',
              id: 'wamid.4',
              timestamp: '1',
              type: 'interactive',
              interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: responseJson } },
            },
          ],
        }),
        at,
      ).messages[0].message;
    const parsed = flowAnswer('{"flow_token":"return-A-1001","items":["mug"],"reason":"broken"}');
    expect(parsed.text).toBe('Sent');
    expect(parsed.content).toEqual({
      type: 'nfm_reply',
      nfm_reply: { name: 'flow', body: 'Sent', response_json: '{"flow_token":"return-A-1001","items":["mug"],"reason":"broken"}' },
      response: { flow_token: 'return-A-1001', items: ['mug'], reason: 'broken' },
    });
    // Escapes the JSON text holds become characters when parsed: those PostgreSQL cannot store are replaced like anywhere else.
    expect(flowAnswer('{"reason":"\\u0000 and \\ud800"}').content).toMatchObject({ response: { reason: '\uFFFD and \uFFFD' } });
    const deep = `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`;
    for (const unparsed of ['{"reason": "brok', '["not", "an object"]', 42, deep]) {
      expect(flowAnswer(unparsed).content).toEqual({
        type: 'nfm_reply',
        nfm_reply: { name: 'flow', body: 'Sent', response_json: unparsed },
      });
    }
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
      { channelMessageId: 'wamid.9', status: 'delivered', error: null, pricing: null, at: new Date(2000) },
      {
        channelMessageId: 'wamid.8',
        status: 'failed',
        error: '(#131047) Re-engagement message: More than 24 hours',
        pricing: null,
        at: new Date(3000),
      },
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
      customer: { profileName: 'Ana\uFFFD' },
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

  it.each([
    ['a minute after it arrived', String(at.getTime() / 1000 + 60)],
    ['in the year 11476', '300000000000'],
  ])('takes the time received for a message timestamped %s, and a status likewise', (_, timestamp) => {
    const parsed = parseChannelWebhook(
      body({
        messages: [{ from: '16315551234', id: 'wamid.f', timestamp, type: 'text', text: { body: 'x' } }],
        statuses: [{ id: 'wamid.9', status: 'delivered', timestamp }],
      }),
      at,
    );
    expect(parsed.messages[0].message.sentAt).toEqual(at);
    expect(parsed.statuses[0].at).toEqual(at);
  });

  it('keeps a timestamp of the very second it arrived', () => {
    const parsed = parseChannelWebhook(
      body({
        messages: [{ from: '16315551234', id: 'wamid.g', timestamp: String(at.getTime() / 1000), type: 'text', text: { body: 'x' } }],
      }),
      new Date(at.getTime() + 999),
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

  it('reads a reaction, a removal without an emoji as the empty one, and the message it reacts to', () => {
    const parsed = parseChannelWebhook(
      body({
        messages: [
          { from: '16315551234', id: 'wamid.r1', timestamp: '1', type: 'reaction', reaction: { message_id: 'wamid.0', emoji: '👍' } },
          { from: '16315551234', id: 'wamid.r2', timestamp: '2', type: 'reaction', reaction: { message_id: 'wamid.0' } },
        ],
      }),
      at,
    );
    expect(parsed.messages.map((m) => m.message.reaction)).toEqual([
      { channelMessageId: 'wamid.0', emoji: '👍' },
      { channelMessageId: 'wamid.0', emoji: '' },
    ]);
  });

  it('reads the new number of a user_changed_number system message, and no number from other system messages', () => {
    const system = (payload: Record<string, unknown>) =>
      parseChannelWebhook(body({ messages: [{ from: '16315551234', id: 'wamid.s', timestamp: '1', type: 'system', system: payload }] }), at)
        .messages[0].message;
    expect(system({ body: 'User A changed from 1 to 2', wa_id: '16315559999', type: 'user_changed_number' })).toMatchObject({
      type: 'system',
      text: 'User A changed from 1 to 2',
      newPhone: '+16315559999',
    });
    expect(system({ body: 'x', new_wa_id: '16315559998', type: 'customer_changed_number' }).newPhone).toBe('+16315559998');
    expect(system({ body: 'x', wa_id: 'not a phone', type: 'user_changed_number' }).newPhone).toBeUndefined();
    expect(system({ body: 'x', type: 'user_changed_user_id' }).newPhone).toBeUndefined();
  });

  it("names each change's business number (metadata.phone_number_id) on its messages and once in phoneNumberIds", () => {
    const change = (phoneNumberId: string, id: string) => ({
      field: 'messages',
      value: {
        metadata: { phone_number_id: phoneNumberId },
        messages: [{ from: '16315551234', id, timestamp: '1', type: 'text', text: { body: 'x' } }],
      },
    });
    const parsed = parseChannelWebhook(
      { entry: [{ changes: [change('111', 'wamid.a'), change('222', 'wamid.b'), change('111', 'wamid.c')] }] },
      at,
    );
    expect(parsed.messages.map((m) => m.phoneNumberId)).toEqual(['111', '222', '111']);
    expect(parsed.phoneNumberIds).toEqual(['111', '222']);
  });

  it('reads a customer without a phone by from_user_id, with the username and name of their contacts entry', () => {
    const parsed = parseChannelWebhook(
      body({
        contacts: [{ user_id: 'US.13491208655302741918', profile: { name: 'Maria', username: 'maria.lopez' } }],
        messages: [{ from_user_id: 'US.13491208655302741918', id: 'wamid.u', timestamp: '1', type: 'text', text: { body: 'Hi' } }],
      }),
      at,
    );
    expect(parsed.ignored).toEqual([]);
    expect(parsed.messages.map((m) => m.customer)).toEqual([
      { phone: null, userId: 'US.13491208655302741918', username: 'maria.lopez', profileName: 'Maria' },
    ]);
  });

  it('takes the user id of a phone sender from their contacts entry, and a message with neither phone nor id is ignored', () => {
    const parsed = parseChannelWebhook(
      body({
        contacts: [{ wa_id: '16315551234', user_id: 'US.1', profile: { name: 'Kim' } }],
        messages: [
          { from: '16315551234', id: 'wamid.p', timestamp: '1', type: 'text', text: { body: 'Hi' } },
          { id: 'wamid.none', timestamp: '1', type: 'text', text: { body: 'Hi' } },
        ],
      }),
      at,
    );
    expect(parsed.messages.map((m) => m.customer)).toEqual([{ phone: '+16315551234', userId: 'US.1', username: null, profileName: 'Kim' }]);
    expect(parsed.ignored).toEqual([expect.stringMatching(/^a message without a usable id or sender/)]);
  });

  it('reads the old and new user ids of a user_changed_user_id system message', () => {
    const parsed = parseChannelWebhook(
      body({
        messages: [
          {
            from_user_id: 'US.2',
            id: 'wamid.c',
            timestamp: '1',
            type: 'system',
            system: { body: 'User changed', type: 'user_changed_user_id', previous_user_id: 'US.1', user_id: 'US.2' },
          },
        ],
      }),
      at,
    );
    expect(parsed.messages[0].message).toMatchObject({ type: 'system', previousUserId: 'US.1', newUserId: 'US.2' });
    expect(parsed.messages[0].customer.userId).toBe('US.2');
  });

  it.each([
    [{ catalog_id: 'c1', product_items: [{ quantity: 1 }] }, 'Order: 1 item, 1 product, catalog c1'],
    [{ product_items: [{ quantity: '2' }, { quantity: 3 }], text: 'gift' }, 'Order: 5 items, 2 products: gift'],
    [{ product_items: 'garbage' }, 'Order: 0 items, 0 products'],
  ])('summarises an order in one line (%j)', (order, text) => {
    const parsed = parseChannelWebhook(body({ messages: [{ from: '16315551234', id: 'wamid.o', type: 'order', order }] }), at);
    expect(parsed.messages[0].message.text).toBe(text);
  });

  it('reads played statuses and their pricing (category, type, model), and keeps the errors of a change', () => {
    const parsed = parseChannelWebhook(
      body({
        statuses: [
          {
            id: 'wamid.p',
            status: 'played',
            timestamp: '5',
            pricing: { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' },
          },
          { id: 'wamid.q', status: 'read', timestamp: '6', pricing: { billable: false, pricing_model: 'PMP', category: 'service' } },
        ],
        errors: [{ code: 131000, title: 'Something went wrong', error_data: { details: 'Unknown' } }, { code: 1e12, message: 'big' }, 'x'],
      }),
      at,
    );
    expect(parsed.statuses).toEqual([
      {
        channelMessageId: 'wamid.p',
        status: 'played',
        error: null,
        pricing: { category: 'utility', type: 'regular', model: 'PMP' },
        at: new Date(5000),
      },
      {
        channelMessageId: 'wamid.q',
        status: 'read',
        error: null,
        pricing: { category: 'service', type: null, model: 'PMP' },
        at: new Date(6000),
      },
    ]);
    expect(parsed.errors.map(({ code, title, details }) => ({ code, title, details }))).toEqual([
      { code: 131000, title: 'Something went wrong', details: 'Unknown' },
      { code: null, title: 'big', details: null },
    ]);
    expect(parsed.ignored).toHaveLength(1);
  });

  it('takes a type named after a property of every object (constructor, __proto__) as an unknown one', () => {
    for (const type of ['constructor', '__proto__', 'toString']) {
      const parsed = parseChannelWebhook(body({ messages: [{ from: '16315551234', id: `wamid.${type}`, timestamp: '1', type }] }), at);
      expect(parsed.messages[0].message).toMatchObject({ type, text: null, content: { type } });
    }
  });

  it('reads a message_template_status_update change: the event, the template by id, name and language, the reason', () => {
    const parsed = parseChannelWebhook(
      body(
        {
          event: 'PAUSED',
          message_template_id: 1689556908129832,
          message_template_name: 'order_update',
          message_template_language: 'en_US',
          reason: 'NONE',
          other_info: { title: 'FIRST_PAUSE', description: 'Your template has been paused' },
        },
        'message_template_status_update',
      ),
    );
    expect(parsed).toEqual({
      errors: [],
      messages: [],
      phoneNumberIds: [],
      statuses: [],
      templates: [
        {
          kind: 'status',
          businessAccountId: '102290129340398',
          template: { channelTemplateId: '1689556908129832', name: 'order_update', language: 'en_US' },
          event: 'PAUSED',
          reason: 'NONE',
        },
      ],
      ignored: [],
    });
  });

  it('reads a template_category_update change: the category the template has now', () => {
    const parsed = parseChannelWebhook(
      body(
        {
          message_template_id: 278077987957091,
          message_template_name: 'welcome_template',
          message_template_language: 'en_US',
          previous_category: 'UTILITY',
          new_category: 'MARKETING',
        },
        'template_category_update',
      ),
    );
    expect(parsed.templates).toEqual([
      {
        kind: 'category',
        businessAccountId: '102290129340398',
        template: { channelTemplateId: '278077987957091', name: 'welcome_template', language: 'en_US' },
        category: 'MARKETING',
      },
    ]);
  });

  it('reads the business account of a template change from its entry id, a string or a number', () => {
    const change = { field: 'template_category_update', value: { message_template_id: 1, new_category: 'UTILITY' } };
    const parsedWith = (id: unknown) => parseChannelWebhook({ object: 'whatsapp_business_account', entry: [{ id, changes: [change] }] });
    expect(parsedWith(987654321).templates[0].businessAccountId).toBe('987654321');
    expect(parsedWith('123').templates[0].businessAccountId).toBe('123');
    expect(parsedWith(undefined).templates[0].businessAccountId).toBeNull();
  });

  it.each([
    ['without an event', 'message_template_status_update', { message_template_id: 1 }],
    ['naming no template', 'message_template_status_update', { event: 'APPROVED', message_template_name: 'x' }],
    ['of a template id that is an object', 'message_template_status_update', { event: 'APPROVED', message_template_id: { toString: 1 } }],
    ['without new_category', 'template_category_update', { message_template_id: 1, previous_category: 'UTILITY' }],
  ])('acknowledges a template change %s without reading it', (_, field, value) => {
    const parsed = parseChannelWebhook(body(value, field));
    expect(parsed.templates).toEqual([]);
    expect(parsed.ignored).toEqual([expect.stringMatching(new RegExp(`^a ${field} change without`))]);
  });
});

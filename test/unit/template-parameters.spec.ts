import { parametersOf, placeholdersIn, sendProblem, type TemplateDefinition } from '../../src/templates/template-parameters';

const positional = (...components: Record<string, unknown>[]): TemplateDefinition => ({ components, parameter_format: 'POSITIONAL' });
const named = (...components: Record<string, unknown>[]): TemplateDefinition => ({ components, parameter_format: 'NAMED' });

/** A header image, a body of two and a URL button with a dynamic suffix, then a quick reply. */
const DELIVERY = positional(
  { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://x/y.jpg'] } },
  { type: 'BODY', text: 'Hi {{1}}, parcel {{2}} arrives today.' },
  { type: 'FOOTER', text: 'Reply STOP to stop' },
  {
    type: 'BUTTONS',
    buttons: [
      { type: 'URL', text: 'Track', url: 'https://example.com/track/{{1}}' },
      { type: 'QUICK_REPLY', text: 'Stop updates' },
    ],
  },
);
const text = (value: string) => ({ type: 'text', text: value });
const header = (parameter: unknown) => ({ type: 'header', parameters: [parameter] });
const body = (...parameters: unknown[]) => ({ type: 'body', parameters });
const button = (index: number | string, subType: string, ...parameters: unknown[]) => ({
  type: 'button',
  sub_type: subType,
  index,
  parameters,
});
const image = { type: 'image', image: { link: 'https://cdn.example.com/parcel.jpg' } };
const deliverySend = () => [header(image), body(text('Maria'), text('A-1001')), button('0', 'url', text('A-1001'))];

describe('placeholdersIn', () => {
  it('reads each distinct {{n}} once, in order of appearance', () => {
    expect(placeholdersIn('{{2}} and {{1}}, again {{1}} and {{ 3 }}', false)).toEqual(['2', '1', '3']);
  });

  it('reads {{name}} placeholders only in a NAMED template, and {{n}} only in a POSITIONAL one', () => {
    const mixed = 'Hello {{first_name}}, order {{1}}';
    expect(placeholdersIn(mixed, true)).toEqual(['first_name']);
    expect(placeholdersIn(mixed, false)).toEqual(['1']);
  });

  it('reads nothing from a text that is not a string', () => {
    expect(placeholdersIn(undefined, false)).toEqual([]);
  });
});

describe('parametersOf', () => {
  it('counts nothing for a template without variables (hello_world)', () => {
    const helloWorld = positional({ type: 'HEADER', format: 'TEXT', text: 'Hello World' }, { type: 'BODY', text: 'Welcome!' });
    expect(parametersOf(helloWorld)).toEqual({ header: null, header_text: 0, body: 0, buttons: [] });
  });

  it('counts a media header, the body variables and a parameter per button that takes one', () => {
    expect(parametersOf(DELIVERY)).toEqual({
      header: 'image',
      header_text: 0,
      body: 2,
      buttons: [
        { index: 0, type: 'url', parameters: 1 },
        { index: 1, type: 'quick_reply', parameters: 1 },
      ],
    });
  });

  it('counts the variable of a text header', () => {
    expect(parametersOf(positional({ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' }))).toMatchObject({
      header: 'text',
      header_text: 1,
    });
  });

  it.each([
    ['VIDEO', 'video'],
    ['DOCUMENT', 'document'],
    ['LOCATION', 'location'],
  ])('names a %s header', (format, expected) => {
    expect(parametersOf(positional({ type: 'HEADER', format })).header).toBe(expected);
  });

  it('counts the named variables of a NAMED template', () => {
    const definition = named({ type: 'BODY', text: 'Hello {{customer_name}}, see you on {{date}}, {{customer_name}}' });
    expect(parametersOf(definition).body).toBe(2);
  });

  it('gives each button type its parameter: copy_code, otp, flow 1; a static URL and a phone number 0', () => {
    const definition = positional({
      type: 'BUTTONS',
      buttons: [
        { type: 'COPY_CODE', example: 'SPRING20' },
        { type: 'OTP', otp_type: 'COPY_CODE', text: 'Copy code' },
        { type: 'FLOW', text: 'Book', flow_id: '1' },
        { type: 'URL', text: 'Shop', url: 'https://example.com/shop' },
        { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+15550001111' },
      ],
    });
    expect(parametersOf(definition).buttons.map((b) => [b.type, b.parameters])).toEqual([
      ['copy_code', 1],
      ['otp', 1],
      ['flow', 1],
      ['url', 0],
      ['phone_number', 0],
    ]);
  });
});

describe('sendProblem', () => {
  it('takes the components Meta documents for a header image, two body variables and a URL button', () => {
    expect(sendProblem(DELIVERY, deliverySend())).toBeNull();
  });

  it('takes a quick reply payload, and the same send without it', () => {
    expect(sendProblem(DELIVERY, [...deliverySend(), button(1, 'quick_reply', { type: 'payload', payload: 'STOP' })])).toBeNull();
    expect(sendProblem(DELIVERY, deliverySend())).toBeNull();
  });

  it('takes a header image by the channel’s media id or by an upload of ours (media_id)', () => {
    const withMedia = (media: Record<string, unknown>) => [header({ type: 'image', image: media }), ...deliverySend().slice(1)];
    expect(sendProblem(DELIVERY, withMedia({ id: '1234567890' }))).toBeNull();
    expect(sendProblem(DELIVERY, withMedia({ media_id: 'med_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' }))).toBeNull();
  });

  it('takes nothing for a template without variables, and refuses a parameter it has no place for', () => {
    const helloWorld = positional({ type: 'HEADER', format: 'TEXT', text: 'Hello World' }, { type: 'BODY', text: 'Welcome!' });
    expect(sendProblem(helloWorld, undefined)).toBeNull();
    expect(sendProblem(helloWorld, [])).toBeNull();
    expect(sendProblem(helloWorld, [body(text('x'))])).toBe('body takes no parameters, got 1');
  });

  it.each([
    [
      'a body with one parameter too few',
      [header(image), body(text('Maria')), button(0, 'url', text('A'))],
      'body takes 2 parameters, got 1',
    ],
    ['no body', [header(image), button(0, 'url', text('A'))], 'body takes 2 parameters, got none'],
    ['no header', [body(text('Maria'), text('A')), button(0, 'url', text('A'))], 'header takes an image, got none'],
    [
      'a video where the header takes an image',
      [
        header({ type: 'video', video: { link: 'https://cdn.example.com/a.mp4' } }),
        body(text('M'), text('A')),
        button(0, 'url', text('A')),
      ],
      'header takes an image, got a video',
    ],
    [
      'two header images',
      [{ type: 'header', parameters: [image, image] }, body(text('M'), text('A'))],
      'header takes 1 image parameter, got 2',
    ],
    [
      'a header image by an http link',
      [header({ type: 'image', image: { link: 'http://cdn.example.com/a.jpg' } }), body(text('M'), text('A'))],
      'header image.link must be an https URL',
    ],
    [
      'a header image by both link and id',
      [header({ type: 'image', image: { link: 'https://cdn.example.com/a.jpg', id: '1' } }), body(text('M'), text('A'))],
      'header image takes exactly one of link, id or media_id, got 2',
    ],
    [
      'a media_id that is not an upload id',
      [header({ type: 'image', image: { media_id: 'wamid.x' } }), body(text('M'), text('A'))],
      'header image.media_id must be the id of an upload (med_…)',
    ],
    ['no URL button suffix', [header(image), body(text('M'), text('A'))], 'button 0 (url) takes 1 parameter, got none'],
    [
      'two URL button suffixes',
      [header(image), body(text('M'), text('A')), button(0, 'url', text('A'), text('B'))],
      'button 0 (url) takes 1 parameter, got 2',
    ],
    [
      'a button index the template does not have',
      [...deliverySend(), button(2, 'quick_reply', { type: 'payload', payload: 'x' })],
      'button 2 is not in the template (it has 2 buttons)',
    ],
    [
      'a quick reply sent as a URL button',
      [...deliverySend(), button(1, 'url', text('x'))],
      'button 1 is a quick_reply button: its sub_type is quick_reply, got "url"',
    ],
    [
      'a quick reply with text instead of a payload',
      [...deliverySend(), button(1, 'quick_reply', text('x'))],
      'button 1 (quick_reply) takes a payload parameter, got "text"',
    ],
    [
      'a button without an index',
      [...deliverySend(), { type: 'button', sub_type: 'quick_reply', parameters: [] }],
      /^a button component needs its index/,
    ],
    ['the body twice', [...deliverySend(), body(text('M'), text('A'))], 'the body component is given twice'],
    [
      'a footer component',
      [...deliverySend(), { type: 'footer', parameters: [] }],
      /^component 3 has type "footer", which this template does not take/,
    ],
    [
      'a body parameter with a line break',
      [header(image), body(text('Maria'), text('A-\n1001')), button(0, 'url', text('A'))],
      'body parameter 2 has a line break, a tab or more than four spaces in a row, which WhatsApp refuses in template parameters',
    ],
    [
      'an empty body text',
      [header(image), body(text('Maria'), text('')), button(0, 'url', text('A'))],
      'body parameter 2 must have a non-empty text',
    ],
  ])('refuses %s', (_, components, problem) => {
    const found = sendProblem(DELIVERY, components);
    if (problem instanceof RegExp) expect(found).toMatch(problem);
    else expect(found).toBe(problem);
  });

  it('takes currency and date_time body parameters with their fallback_value', () => {
    const definition = positional({ type: 'BODY', text: 'You owe {{1}} by {{2}}' });
    const parameters = [
      { type: 'currency', currency: { fallback_value: '$100.99', code: 'USD', amount_1000: 100990 } },
      { type: 'date_time', date_time: { fallback_value: 'February 25, 1977' } },
    ];
    expect(sendProblem(definition, [body(...parameters)])).toBeNull();
    expect(sendProblem(definition, [body(parameters[0], { type: 'date_time', date_time: {} })])).toBe(
      'body parameter 2 must carry date_time with a fallback_value',
    );
  });

  it('takes the parameters of a NAMED template by name, in any order, and refuses other names', () => {
    const definition = named({ type: 'BODY', text: 'Hello {{customer_name}}, see you on {{date}}' });
    const parameter = (name: string, value: string) => ({ type: 'text', parameter_name: name, text: value });
    expect(sendProblem(definition, [body(parameter('date', 'May 4'), parameter('customer_name', 'Maria'))])).toBeNull();
    expect(sendProblem(definition, [body(parameter('name', 'Maria'), parameter('date', 'May 4'))])).toBe(
      'body takes parameters named customer_name, date (parameter_name), got name, date',
    );
  });

  it('takes a coupon code for a copy_code button and the code of an OTP button with sub_type url', () => {
    const coupon = positional({ type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'X' }] });
    expect(sendProblem(coupon, [button(0, 'COPY_CODE', { type: 'coupon_code', coupon_code: 'SPRING20' })])).toBeNull();
    expect(sendProblem(coupon, [])).toBe('button 0 (copy_code) takes 1 parameter, got none');
    const otp = positional(
      { type: 'BODY', text: '{{1}} is your code.' },
      { type: 'BUTTONS', buttons: [{ type: 'OTP', otp_type: 'COPY_CODE' }] },
    );
    expect(sendProblem(otp, [body(text('123456')), button('0', 'url', text('123456'))])).toBeNull();
  });

  it('takes a location header with its coordinates', () => {
    const definition = positional({ type: 'HEADER', format: 'LOCATION' });
    expect(
      sendProblem(definition, [header({ type: 'location', location: { latitude: '37.48', longitude: -122.14, name: 'HQ' } })]),
    ).toBeNull();
    expect(sendProblem(definition, [header({ type: 'location', location: { name: 'HQ' } })])).toBe(
      'header location must carry a latitude and a longitude',
    );
  });

  it('passes on components of kinds it does not know when the template has them (a carousel), and only then', () => {
    const carousel = positional({ type: 'BODY', text: 'Our picks' }, { type: 'CAROUSEL', cards: [] });
    expect(sendProblem(carousel, [{ type: 'carousel', cards: [{ card_index: 0, components: [] }] }])).toBeNull();
    expect(sendProblem(DELIVERY, [...deliverySend(), { type: 'carousel', cards: [] }])).toMatch(/^component 3 has type "carousel"/);
  });
});

import { DataSource } from 'typeorm';
import { PageQuery } from '../src/common/pagination';
import type { ChannelClient } from '../src/channel/channel-client';
import { Database } from '../src/database/database';
import { TemplateRepository, type TemplateFilter } from '../src/templates/template.repository';
import { TemplatesService } from '../src/templates/templates.service';
import { eventually, hubSignature, templateChangeWebhook } from './support/channel';
import { FakeGraphApi } from './support/fake-graph-api';
import { customerWrites } from './support/inbox';
import { createTestDatabase } from './support/test-database';
import { Query, startTestApp, TestApp } from './support/test-app';

const BUSINESS_ACCOUNT = '102290129340398';

/** The settings of a real channel on the fake Graph API, with a business account (a catalogue). */
const channelEnv = (graph: FakeGraphApi, more: Record<string, string> = {}): Record<string, string> => ({
  MESSAGING_ACCESS_TOKEN: 'graph-token',
  MESSAGING_PHONE_NUMBER_ID: '106540352242922',
  MESSAGING_BUSINESS_ACCOUNT_ID: BUSINESS_ACCOUNT,
  MESSAGING_API_BASE_URL: graph.baseUrl,
  MESSAGING_RETRY_SCHEDULE: '50ms,50ms,50ms',
  ...more,
});

let templateIds = 1689556908129800;
/** A template as the Graph API lists it. */
function graphTemplate(name: string, components: Record<string, unknown>[], fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    parameter_format: 'POSITIONAL',
    components,
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    id: String((templateIds += 1)),
    ...fields,
  };
}

const DELIVERY_UPDATE = graphTemplate('delivery_update', [
  { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://scontent.whatsapp.net/v/t61/sample-parcel.jpg'] } },
  { type: 'BODY', text: 'Hi {{1}}, parcel {{2}} arrives today between 2 and 4 pm.', example: { body_text: [['Maria', 'A-1001']] } },
  { type: 'FOOTER', text: 'Reply STOP to stop updates' },
  {
    type: 'BUTTONS',
    buttons: [
      { type: 'URL', text: 'Track it', url: 'https://example.com/track/{{1}}', example: ['https://example.com/track/A-1001'] },
      { type: 'QUICK_REPLY', text: 'Stop updates' },
    ],
  },
]);

/** Five templates; the fake pages them two at a time. */
function catalogue(): Record<string, unknown>[] {
  return [
    graphTemplate('hello_world', [
      { type: 'HEADER', format: 'TEXT', text: 'Hello World' },
      { type: 'BODY', text: 'Welcome and congratulations!!' },
    ]),
    graphTemplate('order_update', [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' }]),
    graphTemplate('order_update', [{ type: 'BODY', text: 'Olá {{1}}, o seu pedido {{2}} foi enviado.' }], { language: 'pt_BR' }),
    DELIVERY_UPDATE,
    graphTemplate('spring_sale', [{ type: 'BODY', text: 'Spring sale: {{1}} off' }], { status: 'PENDING', category: 'MARKETING' }),
  ];
}

const image = (link = 'https://cdn.example.com/parcel.jpg') => ({ type: 'image', image: { link } });
const text = (value: string) => ({ type: 'text', text: value });
/** The components Meta documents for delivery_update: a header image, two body parameters, the URL button's suffix. */
const deliveryComponents = (): Record<string, unknown>[] => [
  { type: 'header', parameters: [image()] },
  { type: 'body', parameters: [text('Maria'), text('A-1001')] },
  { type: 'button', sub_type: 'url', index: '0', parameters: [text('A-1001')] },
];

interface ListedTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  updated_at: string;
}

describe('the template catalogue of a WhatsApp Business Account', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  let agent: string;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    graph.templates = catalogue();
    graph.templatePageSize = 2;
    t = await startTestApp({ env: channelEnv(graph) });
    admin = await t.adminToken();
    agent = (await t.createUser({ role: 'agent' })).token;
    // The sync at start: the catalogue appears without anyone asking for it.
    await eventually(async () => expect((await list()).map((template) => template.name)).toHaveLength(5));
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const list = async (query: Query = ''): Promise<ListedTemplate[]> => {
    const answer = await t.request('GET', `/api/v1/templates${query}`, { token: admin });
    expect(answer.status).toBe(200);
    return answer.body.data as ListedTemplate[];
  };
  const find = async (name: string, language = 'en_US'): Promise<ListedTemplate> =>
    (await list(`?q=${name}&limit=100`)).find((template) => template.name === name && template.language === language)!;
  const sync = () => t.request('POST', '/api/v1/templates/sync', { token: admin });
  const send = (conversationId: string, template: Record<string, unknown>) =>
    t.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: admin, body: { type: 'template', template } });
  const webhook = async (body: Record<string, unknown>) => {
    const answer = await t.request('POST', '/api/webhooks/messaging', { body });
    expect(answer.status).toBe(200);
  };

  describe('sync', () => {
    it('reads every page at start, each asked of the configured base with the bearer token and the previous page’s after cursor', () => {
      const requests = graph.templateRequests();
      expect(requests).toHaveLength(3);
      const urls = requests.map((request) => new URL(request.path, 'http://graph'));
      for (const [index, url] of urls.entries()) {
        expect(url.pathname).toBe(`/${BUSINESS_ACCOUNT}/message_templates`);
        expect(url.searchParams.get('fields')?.split(',').sort()).toEqual(
          ['category', 'components', 'id', 'language', 'name', 'parameter_format', 'status'].sort(),
        );
        expect(requests[index].authorization).toBe('Bearer graph-token');
      }
      expect(urls.map((url) => url.searchParams.get('after'))).toEqual([
        null,
        Buffer.from('2').toString('base64url'),
        Buffer.from('4').toString('base64url'),
      ]);
    });

    it('lists each template with the channel’s definition and what a send must fill', async () => {
      const delivery = (await t.request('GET', '/api/v1/templates?q=delivery', { token: agent })).body.data[0];
      expect(delivery).toEqual({
        id: expect.stringMatching(/^tpl_[0-9a-f]{32}$/),
        business_account_id: BUSINESS_ACCOUNT,
        name: 'delivery_update',
        language: 'en_US',
        category: 'UTILITY',
        status: 'APPROVED',
        components: DELIVERY_UPDATE.components,
        parameters: {
          header: 'image',
          header_text: 0,
          body: 2,
          buttons: [
            { index: 0, type: 'url', parameters: 1 },
            { index: 1, type: 'quick_reply', parameters: 1 },
          ],
        },
        updated_at: expect.any(String),
      });
      const one = await t.request('GET', `/api/v1/templates/${delivery.id}`, { token: agent });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(delivery);
    });

    it('answers 404 for an unknown template id and for an id of another kind', async () => {
      for (const id of ['tpl_0000000000007000800000000000000a', 'conv_0000000000007000800000000000000a']) {
        const answer = await t.request('GET', `/api/v1/templates/${id}`, { token: admin });
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual({ error: 'Template not found' });
      }
    });

    it('syncs on POST /templates/sync, answering {synced: n} once every page is stored', async () => {
      graph.templates.push(graphTemplate('payment_reminder', [{ type: 'BODY', text: 'Your invoice {{1}} is due.' }]));
      const before = graph.templateRequests().length;
      const answer = await sync();
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ synced: 6 });
      expect(graph.templateRequests().length - before).toBe(3);
      expect((await find('payment_reminder')).status).toBe('APPROVED');
    });

    it('lets only admins sync: an agent gets 403 and the channel is not asked', async () => {
      const before = graph.templateRequests().length;
      const answer = await t.request('POST', '/api/v1/templates/sync', { token: agent });
      expect(answer.status).toBe(403);
      expect(Object.keys(answer.body)).toEqual(['error']);
      expect(graph.templateRequests()).toHaveLength(before);
    });

    it('marks a template the account no longer has DELETED, keeping its id, and brings it back when it returns', async () => {
      const before = await find('payment_reminder');
      const kept = graph.templates.find((template) => template.name === 'payment_reminder')!;
      graph.templates = graph.templates.filter((template) => template !== kept);
      expect((await sync()).body).toEqual({ synced: 5 });
      expect(await find('payment_reminder')).toMatchObject({ id: before.id, status: 'DELETED' });
      graph.templates.push(kept);
      expect((await sync()).body).toEqual({ synced: 6 });
      expect(await find('payment_reminder')).toMatchObject({ id: before.id, status: 'APPROVED' });
    });

    it('leaves the updated_at of an unchanged template as it was', async () => {
      const before = await find('hello_world');
      expect((await sync()).status).toBe(200);
      expect((await find('hello_world')).updated_at).toBe(before.updated_at);
    });

    it('answers 503 with the channel’s reason when a page fails, and stores nothing of the pages it read', async () => {
      const dropped = graph.templates.pop()!;
      graph.failTemplatesNext(null, { status: 500, body: { error: { message: 'An unexpected error has occurred', code: 2 } } });
      const answer = await sync();
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({
        error:
          'The template catalogue could not be read from the channel (business account 102290129340398: The channel refused page 2 of the template catalogue: (#2) An unexpected error has occurred)',
      });
      expect((await find(String(dropped.name))).status).toBe('APPROVED');
      graph.templates.push(dropped);
    });

    it('does not follow a paging.next to another host: every page is asked of the configured base', async () => {
      const elsewhere = await FakeGraphApi.start();
      try {
        graph.templateNextBaseUrl = elsewhere.baseUrl;
        const before = graph.templateRequests().length;
        expect((await sync()).body).toEqual({ synced: 6 });
        expect(graph.templateRequests().length - before).toBe(3);
        expect(elsewhere.requests).toEqual([]);
      } finally {
        graph.templateNextBaseUrl = null;
        await elsewhere.close();
      }
    });
  });

  describe('listing', () => {
    const names = async (query: Query) => (await list(query)).map((template) => `${template.name}/${template.language}`).sort();

    it('filters by status (case-insensitive), language and part of the name', async () => {
      expect(await names('?status=pending')).toEqual(['spring_sale/en_US']);
      expect(await names('?language=pt_BR')).toEqual(['order_update/pt_BR']);
      expect(await names('?q=ORDER')).toEqual(['order_update/en_US', 'order_update/pt_BR']);
      expect(await names('?q=%25')).toEqual([]);
      expect(await names('?status=APPROVED&language=en_US&q=hello')).toEqual(['hello_world/en_US']);
    });

    it('walks the whole catalogue once with limit and cursor', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { data: { id: string }[]; next_cursor: string | null } } = await t.request(
          'GET',
          `/api/v1/templates?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          { token: admin },
        );
        seen.push(...page.body.data.map((template) => template.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen).toHaveLength(6);
      expect(new Set(seen).size).toBe(6);
    });

    it.each([
      ['?status=not-a-status', /^status must be a template status/],
      ['?language=english!', /^language must be a language code/],
      ['?limit=0', /^limit /],
      ['?cursor=abc', /^cursor /],
      ['?q=', /^q /],
    ])('refuses %s with 400', async (query, message) => {
      const answer = await t.request('GET', `/api/v1/templates${query as Query}`, { token: admin });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(message);
    });
  });

  describe('checking a template send before it is queued', () => {
    it('sends a template with a header image, two body parameters and a URL button with exactly the payload Meta documents', async () => {
      const { id, phone } = await customerWrites(t);
      const components = deliveryComponents();
      const answer = await send(id, { name: 'delivery_update', language: 'en_US', components });
      expect(answer.status).toBe(201);
      expect(answer.body.content).toEqual({ name: 'delivery_update', language: 'en_US', components });
      await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(1));
      expect(graph.sendsTo(phone)[0].body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: phone.slice(1),
        type: 'template',
        template: {
          name: 'delivery_update',
          language: { code: 'en_US' },
          components: [
            { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/parcel.jpg' } }] },
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Maria' },
                { type: 'text', text: 'A-1001' },
              ],
            },
            { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-1001' }] },
          ],
        },
      });
    });

    it("sends a header image from one of our uploads as the channel's media id, and counts the upload as sent", async () => {
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
      const boundary = 'template-header-upload';
      const uploaded = await t.request('POST', '/api/v1/media', {
        token: admin,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="parcel.png"\r\nContent-Type: image/png\r\n\r\n`,
          ),
          png,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
      expect(uploaded.status).toBe(201);
      const mediaId = uploaded.body.id as string;
      const { id, phone } = await customerWrites(t);
      const components = deliveryComponents();
      components[0] = { type: 'header', parameters: [{ type: 'image', image: { media_id: mediaId } }] };
      const answer = await send(id, { name: 'delivery_update', language: 'en_US', components });
      expect(answer.status).toBe(201);
      await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(1));
      const header = (graph.sendsTo(phone)[0].body as { template: { components: { parameters: unknown[] }[] } }).template.components[0];
      const upload = graph.mediaUploads.at(-1)!;
      expect(upload.file?.bytes.equals(png)).toBe(true);
      expect(header.parameters).toEqual([{ type: 'image', image: { id: expect.stringMatching(/\S/) } }]);
      expect(JSON.stringify(header)).not.toContain('med_');
      const [row] = await t.sql<{ sent_at: Date | null }>('SELECT sent_at FROM media WHERE id = $1', [
        mediaId.replace(/^med_(\w{8})(\w{4})(\w{4})(\w{4})(\w{12})$/, '$1-$2-$3-$4-$5'),
      ]);
      expect(row.sent_at).not.toBeNull();
    });

    it('sends the quick reply payload of the second button as Meta documents it', async () => {
      const { id, phone } = await customerWrites(t);
      const quickReply = { type: 'button', sub_type: 'quick_reply', index: 1, parameters: [{ type: 'payload', payload: 'STOP-A-1001' }] };
      const answer = await send(id, { name: 'delivery_update', language: 'en_US', components: [...deliveryComponents(), quickReply] });
      expect(answer.status).toBe(201);
      await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(1));
      expect((graph.sendsTo(phone)[0].body!.template as { components: unknown[] }).components[3]).toEqual(quickReply);
    });

    const withComponent = (index: number, component: Record<string, unknown> | null) => {
      const components = deliveryComponents();
      if (component) components[index] = component;
      else components.splice(index, 1);
      return { name: 'delivery_update', language: 'en_US', components };
    };

    it.each([
      [
        'an unknown name',
        { name: 'delivery_updates', language: 'en_US' },
        'Template delivery_updates (en_US) is not in the catalogue of business account 102290129340398',
      ],
      [
        'a language the template does not have',
        { name: 'order_update', language: 'es_ES', components: [{ type: 'body', parameters: [text('Ana'), text('A-1')] }] },
        'Template order_update has no language es_ES in the catalogue (it has en_US, pt_BR)',
      ],
      [
        'a template that is not approved',
        { name: 'spring_sale', language: 'en_US', components: [{ type: 'body', parameters: [text('20%')] }] },
        'Template spring_sale (en_US) is PENDING: only APPROVED templates can be sent',
      ],
      [
        'one body parameter too few',
        withComponent(1, { type: 'body', parameters: [text('Maria')] }),
        'Template delivery_update (en_US): body takes 2 parameters, got 1',
      ],
      ['no header', withComponent(0, null), 'Template delivery_update (en_US): header takes an image, got none'],
      [
        'a video header where the template takes an image',
        withComponent(0, { type: 'header', parameters: [{ type: 'video', video: { link: 'https://cdn.example.com/parcel.mp4' } }] }),
        'Template delivery_update (en_US): header takes an image, got a video',
      ],
      [
        'two parameters for the URL button',
        withComponent(2, { type: 'button', sub_type: 'url', index: '0', parameters: [text('A-1001'), text('B')] }),
        'Template delivery_update (en_US): button 0 (url) takes 1 parameter, got 2',
      ],
    ])('refuses %s with 422 naming the problem, before anything reaches the channel', async (_, template, error) => {
      const { id, phone } = await customerWrites(t);
      const answer = await send(id, template);
      expect(answer.status).toBe(422);
      expect(answer.body).toEqual({ error });
      const thread = await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: admin });
      expect((thread.body.data as { direction: string }[]).map((message) => message.direction)).toEqual(['inbound']);
      // Nothing was queued, so nothing can reach the channel: the next send is the first it gets.
      expect((await send(id, { name: 'hello_world', language: 'en_US' })).status).toBe(201);
      await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(1));
      expect(graph.sendsTo(phone)[0].body!.template).toEqual({ name: 'hello_world', language: { code: 'en_US' } });
    });

    it('answers 404 for an unknown conversation before looking at the template', async () => {
      const answer = await send('conv_0000000000007000800000000000000a', { name: 'no_such_template', language: 'en_US' });
      expect(answer.status).toBe(404);
    });
  });

  describe('template changes from the channel webhook', () => {
    it('sets the status of a message_template_status_update at once, so the next send is refused, then syncs', async () => {
      const { id } = await customerWrites(t);
      const order = { name: 'order_update', language: 'en_US', components: [{ type: 'body', parameters: [text('Maria'), text('A-7')] }] };
      expect((await send(id, order)).status).toBe(201);
      const template = graph.templates.find((item) => item.name === 'order_update' && item.language === 'en_US')!;
      template.status = 'PAUSED';
      // The sync the change asks for fails, so what the list shows right after is the webhook's doing.
      graph.failTemplatesNext({ status: 503, body: { error: { message: 'Service temporarily unavailable', code: 2 } } });
      const before = graph.templateRequests().length;
      await webhook(
        templateChangeWebhook('message_template_status_update', {
          event: 'PAUSED',
          message_template_id: Number(template.id),
          message_template_name: 'order_update',
          message_template_language: 'en_US',
          reason: null,
          other_info: { title: 'FIRST_PAUSE', description: 'Your message template has been paused' },
        }),
      );
      expect((await find('order_update')).status).toBe('PAUSED');
      const refused = await send(id, order);
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({ error: 'Template order_update (en_US) is PAUSED: only APPROVED templates can be sent' });
      // The sync that follows: the failed attempt, then its retry.
      await eventually(async () => expect(graph.templateRequests().length - before).toBeGreaterThanOrEqual(4));
      expect((await find('order_update')).status).toBe('PAUSED');

      template.status = 'APPROVED';
      const reinstatedAt = new Date();
      await webhook(
        templateChangeWebhook('message_template_status_update', {
          event: 'REINSTATED',
          message_template_id: Number(template.id),
          message_template_name: 'order_update',
          message_template_language: 'en_US',
          reason: null,
        }),
      );
      expect((await find('order_update')).status).toBe('APPROVED');
      expect((await send(id, order)).status).toBe(201);
      // The sync this change asked for ends here, so that it cannot write the catalogue over the next test's change.
      await eventually(async () => {
        const [sync] = await t.sql<{ synced_at: Date | null }>('SELECT max(synced_at) AS synced_at FROM template_syncs');
        expect(sync.synced_at !== null && new Date(sync.synced_at) >= reinstatedAt).toBe(true);
      });
    });

    it('sets the category of a template_category_update at once', async () => {
      const template = graph.templates.find((item) => item.name === 'hello_world')!;
      template.category = 'MARKETING';
      graph.failTemplatesNext({ status: 500, body: { error: { message: 'Please retry', code: 1 } } });
      await webhook(
        templateChangeWebhook('template_category_update', {
          message_template_id: Number(template.id),
          message_template_name: 'hello_world',
          message_template_language: 'en_US',
          previous_category: 'UTILITY',
          new_category: 'MARKETING',
        }),
      );
      expect((await find('hello_world')).category).toBe('MARKETING');
    });

    it('brings in, by the sync it asks for, a template approved that the catalogue did not have', async () => {
      const fresh = graphTemplate('welcome_back', [{ type: 'BODY', text: 'Welcome back, {{1}}!' }]);
      graph.templates.push(fresh);
      await webhook(
        templateChangeWebhook('message_template_status_update', {
          event: 'APPROVED',
          message_template_id: Number(fresh.id),
          message_template_name: 'welcome_back',
          message_template_language: 'en_US',
          reason: 'NONE',
        }),
      );
      await eventually(async () => expect(await find('welcome_back')).toMatchObject({ status: 'APPROVED' }));
    });
  });
});

describe('the periodic template sync', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startTestApp({ env: channelEnv(graph, { MESSAGING_TEMPLATE_SYNC_INTERVAL: '1s' }) });
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const names = async () =>
    ((await t.request('GET', '/api/v1/templates', { token: await t.adminToken() })).body.data as { name: string }[])
      .map((x) => x.name)
      .sort();

  it('syncs again every MESSAGING_TEMPLATE_SYNC_INTERVAL without being asked, and after a failure, logged, tries again', async () => {
    await eventually(async () => expect(await names()).toEqual(['hello_world']));
    graph.failTemplatesNext({ status: 500, body: { error: { message: 'An unexpected error has occurred', code: 2 } } });
    graph.templates.push(graphTemplate('order_update', [{ type: 'BODY', text: 'Order {{1}} shipped' }]));
    await eventually(async () => expect(await names()).toEqual(['hello_world', 'order_update']));
    expect(t.logs.some((line) => String(line.msg).startsWith('Template sync failed (1 in a row)'))).toBe(true);
  });
});

describe('the sandbox channel’s template catalogue', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.adminToken();
  });
  afterAll(() => t.close());

  it('checks a send made right after start against the sandbox catalogue, and sends hello_world', async () => {
    const { id } = await customerWrites(t);
    const send = (template: Record<string, unknown>) =>
      t.request('POST', `/api/v1/conversations/${id}/messages`, { token: admin, body: { type: 'template', template } });
    expect((await send({ name: 'hello_world', language: 'en_US' })).status).toBe(201);
    const refused = await send({ name: 'order_update', language: 'en_US', components: [{ type: 'body', parameters: [text('Maria')] }] });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: 'Template order_update (en_US): body takes 2 parameters, got 1' });
    const delivery = await send({ name: 'delivery_update', language: 'en_US', components: deliveryComponents() });
    expect(delivery.status).toBe(201);
    await eventually(async () => {
      const thread = await t.request('GET', `/api/v1/conversations/${id}/messages`, { token: admin });
      expect((thread.body.data as { status: string }[]).filter((message) => message.status === 'sent')).toHaveLength(2);
    });
  });

  it('lists its own catalogue without an account and syncs it on demand', async () => {
    expect((await t.request('POST', '/api/v1/templates/sync', { token: admin })).body).toEqual({ synced: 5 });
    const listed = (await t.request('GET', '/api/v1/templates?status=APPROVED&limit=100', { token: admin })).body.data as {
      name: string;
      language: string;
      parameters: unknown;
    }[];
    expect(listed.map((template) => template.name).sort()).toEqual([
      'appointment_reminder',
      'delivery_update',
      'hello_world',
      'order_update',
      'spring_discount',
    ]);
    expect(listed.find((template) => template.name === 'hello_world')).toMatchObject({
      language: 'en_US',
      parameters: { header: null, header_text: 0, body: 0, buttons: [] },
    });
  });
});

describe('a template catalogue per business account', () => {
  const DEFAULT_INBOX = 'inb_00000000000070008000000000000001';
  const SALES_ACCOUNT = '300000000000003';
  const SALES_NUMBER = '200000000000002';
  let graph: FakeGraphApi;
  let t: TestApp;
  let admin: string;
  let sales: string;
  let supportConversation: string;
  let salesConversation: string;
  let contactId: string;
  let lastNumber = 200000000000100;

  /** The sales account's catalogue: its own template, and an order_update of one parameter where the support account's takes two. */
  const salesCatalogue = () => [
    graphTemplate('sales_offer', [{ type: 'BODY', text: 'Today only: {{1}} off' }], { category: 'MARKETING' }),
    graphTemplate('order_update', [{ type: 'BODY', text: 'Sales here: your order {{1}} has shipped.' }]),
  ];
  const listed = async (query: string, token = admin) => {
    const answer = await t.request('GET', `/api/v1/templates${query}` as '/api/v1/templates', { token });
    expect(answer.status).toBe(200);
    return answer.body.data.map((template) => `${template.business_account_id} ${template.name} ${template.language}`).sort();
  };
  const send = (conversationId: string, template: Record<string, unknown>) =>
    t.request('POST', `/api/v1/conversations/${conversationId}/messages`, { token: admin, body: { type: 'template', template } });
  const orderUpdate = (...parameters: string[]) => ({
    name: 'order_update',
    language: 'en_US',
    components: [{ type: 'body', parameters: parameters.map(text) }],
  });
  const createInbox = async (fields: Record<string, unknown>): Promise<string> => {
    const created = await t.request('POST', '/api/v1/inboxes', {
      token: admin,
      body: { name: `Inbox ${(lastNumber += 1)}`, phone_number_id: String(lastNumber), access_token: `token-${lastNumber}`, ...fields },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const openIn = async (inboxId: string, contactId: string): Promise<string> => {
    const opened = await t.request('POST', '/api/v1/conversations', { token: admin, body: { contact_id: contactId, inbox_id: inboxId } });
    expect(opened.status).toBe(201);
    return opened.body.id as string;
  };
  const signedWebhook = (body: Record<string, unknown>, secret: string) => {
    const payload = JSON.stringify(body);
    return t.request('POST', '/api/webhooks/messaging', {
      payload,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(payload, secret) },
    });
  };

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    graph.templates = catalogue();
    graph.accountTemplates.set(SALES_ACCOUNT, salesCatalogue());
    t = await startTestApp({ env: channelEnv(graph, { MESSAGING_APP_SECRET: 'support-secret' }) });
    admin = await t.adminToken();
    await eventually(async () => expect(await listed('')).toHaveLength(5));
    sales = await createInbox({
      name: 'Sales',
      phone_number_id: SALES_NUMBER,
      business_account_id: SALES_ACCOUNT,
      access_token: 'sales-token',
      app_secret: 'sales-secret',
    });
    const customer = await customerWrites(t, { appSecret: 'support-secret' });
    supportConversation = customer.id;
    contactId = (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent(customer.phone)}`, { token: admin })).body.data[0]
      .id as string;
    salesConversation = await openIn(sales, contactId);
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  it('syncs a new inbox’s business account at once, through that inbox’s token, and lists each catalogue by inbox_id', async () => {
    await eventually(async () =>
      expect(await listed(`?inbox_id=${sales}`)).toEqual([`${SALES_ACCOUNT} order_update en_US`, `${SALES_ACCOUNT} sales_offer en_US`]),
    );
    const salesReads = graph.templateRequests().filter((request) => request.path.startsWith(`/${SALES_ACCOUNT}/message_templates`));
    expect(salesReads.length).toBeGreaterThanOrEqual(1);
    expect(new Set(salesReads.map((request) => request.authorization))).toEqual(new Set(['Bearer sales-token']));
    const support = await listed(`?inbox_id=${DEFAULT_INBOX}`);
    expect(support).toHaveLength(5);
    expect(support.every((line) => line.startsWith(`${BUSINESS_ACCOUNT} `))).toBe(true);
    expect(await listed('')).toEqual([...support, `${SALES_ACCOUNT} order_update en_US`, `${SALES_ACCOUNT} sales_offer en_US`].sort());
  });

  it('checks a template send against the catalogue of the conversation’s inbox, and sends it from that inbox’s number', async () => {
    const offer = { name: 'sales_offer', language: 'en_US', components: [{ type: 'body', parameters: [text('20%')] }] };
    const elsewhere = await send(supportConversation, offer);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body).toEqual({
      error: `Template sales_offer (en_US) is not in the catalogue of business account ${BUSINESS_ACCOUNT}`,
    });
    expect((await send(salesConversation, offer)).status).toBe(201);
    // One order_update per account, each with its own definition.
    expect((await send(salesConversation, orderUpdate('A-1'))).status).toBe(201);
    expect((await send(salesConversation, orderUpdate('Maria', 'A-1'))).status).toBe(422);
    expect((await send(supportConversation, orderUpdate('A-1'))).status).toBe(422);
    expect((await send(supportConversation, orderUpdate('Maria', 'A-1'))).status).toBe(201);
    await eventually(async () =>
      expect(
        graph.requests
          .filter((request) => request.method === 'POST' && (request.body?.template as { name?: string } | undefined)?.name !== undefined)
          .map((request) => `${request.path} ${request.authorization} ${(request.body!.template as { name: string }).name}`)
          .sort(),
      ).toEqual(
        [
          `/${SALES_NUMBER}/messages Bearer sales-token sales_offer`,
          `/${SALES_NUMBER}/messages Bearer sales-token order_update`,
          `/106540352242922/messages Bearer graph-token order_update`,
        ].sort(),
      ),
    );
  });

  it('applies a template change to the catalogue of the business account its entry names, signed by that account’s inbox', async () => {
    const template = graph.accountTemplates.get(SALES_ACCOUNT)!.find((item) => item.name === 'order_update')!;
    template.status = 'PAUSED';
    const change = templateChangeWebhook(
      'message_template_status_update',
      {
        event: 'PAUSED',
        message_template_id: Number(template.id),
        message_template_name: 'order_update',
        message_template_language: 'en_US',
      },
      SALES_ACCOUNT,
    );
    expect((await signedWebhook(change, 'support-secret')).status).toBe(401);
    const changedAt = new Date();
    expect((await signedWebhook(change, 'sales-secret')).status).toBe(200);
    const statuses = await t.request('GET', '/api/v1/templates?q=order_update&language=en_US', { token: admin });
    expect(
      Object.fromEntries(
        (statuses.body.data as { business_account_id: string; status: string }[]).map((row) => [row.business_account_id, row.status]),
      ),
    ).toEqual({ [BUSINESS_ACCOUNT]: 'APPROVED', [SALES_ACCOUNT]: 'PAUSED' });
    expect((await send(salesConversation, orderUpdate('A-2'))).status).toBe(422);
    expect((await send(supportConversation, orderUpdate('Maria', 'A-2'))).status).toBe(201);
    // The sync the change asked for ends, then the account's template is approved again and synced.
    await eventually(async () => {
      const [row] = await t.sql<{ synced_at: Date | null }>('SELECT synced_at FROM template_syncs WHERE id = $1', [SALES_ACCOUNT]);
      expect(row.synced_at !== null && new Date(row.synced_at) >= changedAt).toBe(true);
    });
    template.status = 'APPROVED';
    expect((await t.request('POST', '/api/v1/templates/sync', { token: admin })).status).toBe(200);
    expect((await send(salesConversation, orderUpdate('A-3'))).status).toBe(201);
  });

  it('shares one catalogue among the inboxes on one business account, with one sync of it', async () => {
    const second = await createInbox({ business_account_id: BUSINESS_ACCOUNT });
    expect(await listed(`?inbox_id=${second}`)).toEqual(await listed(`?inbox_id=${DEFAULT_INBOX}`));
    const syncs = await t.sql<{ id: string }>('SELECT id FROM template_syncs ORDER BY id');
    expect(syncs.map((row) => row.id)).toEqual([BUSINESS_ACCOUNT, SALES_ACCOUNT].sort());
  });

  it('syncs every catalogue in use on POST /templates/sync', async () => {
    const before = graph.templateRequests().length;
    const answer = await t.request('POST', '/api/v1/templates/sync', { token: admin });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ synced: 5 + 2 });
    const accounts = graph
      .templateRequests()
      .slice(before)
      .map((request) => request.path.split('/')[1]);
    expect([...new Set(accounts)].sort()).toEqual([BUSINESS_ACCOUNT, SALES_ACCOUNT].sort());
  });

  it('lists to an agent only the catalogues of its inboxes, and 404 for an inbox it does not work', async () => {
    const agent = (await t.createUser({ role: 'agent', inbox_ids: [sales] })).token;
    expect(await listed('', agent)).toEqual([`${SALES_ACCOUNT} order_update en_US`, `${SALES_ACCOUNT} sales_offer en_US`]);
    expect(await listed(`?inbox_id=${sales}`, agent)).toHaveLength(2);
    const other = await t.request('GET', `/api/v1/templates?inbox_id=${DEFAULT_INBOX}`, { token: agent });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: 'Inbox not found' });
  });

  it('answers an agent a template by id only from the catalogue of an inbox it works', async () => {
    const agent = (await t.createUser({ role: 'agent', inbox_ids: [sales] })).token;
    const ids = async (query: string) =>
      (await t.request('GET', `/api/v1/templates${query}` as '/api/v1/templates', { token: admin })).body.data.map((row) => row.id);
    const [salesTemplate] = await ids(`?inbox_id=${sales}`);
    const [supportTemplate] = await ids(`?inbox_id=${DEFAULT_INBOX}`);
    expect((await t.request('GET', `/api/v1/templates/${salesTemplate}`, { token: agent })).status).toBe(200);
    const hidden = await t.request('GET', `/api/v1/templates/${supportTemplate}`, { token: agent });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'Template not found' });
    expect((await t.request('GET', `/api/v1/templates/${supportTemplate}`, { token: admin })).status).toBe(200);
  });

  it('does not store a sync’s read when a later sync of the catalogue was started while it read', async () => {
    const repository = t.app.get(TemplateRepository);
    const database = t.app.get(Database);
    const earlier = await repository.claimOutsideJob(database.db, SALES_ACCOUNT);
    await repository.claimOutsideJob(database.db, SALES_ACCOUNT);
    const staleChannel = {
      catalogue: SALES_ACCOUNT,
      listTemplates: () =>
        Promise.resolve([
          {
            id: '1',
            name: 'stale_only',
            language: 'en_US',
            status: 'APPROVED',
            category: 'UTILITY',
            components: [],
            parameter_format: 'POSITIONAL',
          },
        ]),
    } as unknown as ChannelClient;
    await t.app.get(TemplatesService).sync(SALES_ACCOUNT, staleChannel, earlier);
    expect(await listed(`?inbox_id=${sales}`)).not.toContain(`${SALES_ACCOUNT} stale_only en_US`);
    expect(await listed(`?inbox_id=${sales}`)).toContain(`${SALES_ACCOUNT} sales_offer en_US`);
  });

  it('leaves unchecked the template sends of an inbox without a business account, which has no catalogue', async () => {
    const bare = await createInbox({});
    const conversation = await openIn(bare, contactId);
    expect(await listed(`?inbox_id=${bare}`)).toEqual([]);
    expect((await send(conversation, { name: 'anything_at_all', language: 'en_US' })).status).toBe(201);
  });

  it('parks the sync of a catalogue no active inbox reads, and takes it up again when one does', async () => {
    const disabled = await t.request('PATCH', `/api/v1/inboxes/${sales}`, { token: admin, body: { status: 'disabled' } });
    expect(disabled.status).toBe(200);
    expect(await listed('')).not.toContain(`${SALES_ACCOUNT} sales_offer en_US`);
    await t.sql(`UPDATE template_syncs SET next_attempt_at = now() WHERE id = $1`, [SALES_ACCOUNT]);
    await eventually(async () => {
      const [row] = await t.sql<{ next_attempt_at: Date | null }>('SELECT next_attempt_at FROM template_syncs WHERE id = $1', [
        SALES_ACCOUNT,
      ]);
      expect(row.next_attempt_at).toBeNull();
    });
    const enabledAt = new Date();
    expect((await t.request('PATCH', `/api/v1/inboxes/${sales}`, { token: admin, body: { status: 'active' } })).status).toBe(200);
    await eventually(async () => {
      const [row] = await t.sql<{ synced_at: Date | null }>('SELECT synced_at FROM template_syncs WHERE id = $1', [SALES_ACCOUNT]);
      expect(row.synced_at !== null && new Date(row.synced_at) >= enabledAt).toBe(true);
    });
    expect(await listed('')).toContain(`${SALES_ACCOUNT} sales_offer en_US`);
  });
});

describe('templates stored before catalogues were per business account', () => {
  it('keep their ids in the catalogue of the default inbox’s business account, whose sync carries on', async () => {
    const graph = await FakeGraphApi.start();
    graph.templates = catalogue();
    const database = await createTestDatabase();
    const env = channelEnv(graph);
    try {
      const first = await startTestApp({ database, env });
      let before: ListedTemplate[];
      try {
        await eventually(async () =>
          expect((await first.request('GET', '/api/v1/templates', { token: await first.adminToken() })).body.data).toHaveLength(5),
        );
        before = (await first.request('GET', '/api/v1/templates?limit=100', { token: await first.adminToken() })).body.data;
        // The database as it was before this migration: one catalogue, one sync row.
        const dataSource = first.app.get(DataSource);
        const last = async () =>
          ((await dataSource.query('SELECT name FROM migrations ORDER BY timestamp DESC LIMIT 1')) as { name: string }[])[0].name;
        while ((await last()) !== 'TemplateCatalogues1764110000000') await dataSource.undoLastMigration();
        await dataSource.undoLastMigration();
        expect(await first.sql<{ id: string }>('SELECT id FROM template_syncs')).toEqual([{ id: 'catalogue' }]);
      } finally {
        await first.close();
      }
      const after = await startTestApp({ database, env });
      try {
        const listedAfter = (await after.request('GET', '/api/v1/templates?limit=100', { token: await after.adminToken() })).body.data;
        expect(listedAfter.map((template) => template.id).sort()).toEqual(before.map((template) => template.id).sort());
        expect(new Set(listedAfter.map((template) => template.business_account_id))).toEqual(new Set([BUSINESS_ACCOUNT]));
        const [sync] = await after.sql<{ id: string; synced_at: Date | null }>('SELECT id, synced_at FROM template_syncs');
        expect(sync).toEqual({ id: BUSINESS_ACCOUNT, synced_at: expect.any(Date) });
      } finally {
        await after.close();
      }
    } finally {
      await database.drop();
      await graph.close();
    }
  });
});

describe('a channel without MESSAGING_BUSINESS_ACCOUNT_ID', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    const env = channelEnv(graph);
    delete env.MESSAGING_BUSINESS_ACCOUNT_ID;
    t = await startTestApp({ env });
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  it('has no catalogue: any template is sent unchecked, the channel is never asked for templates, and a sync is 422', async () => {
    const admin = await t.adminToken();
    const { id, phone } = await customerWrites(t);
    const answer = await t.request('POST', `/api/v1/conversations/${id}/messages`, {
      token: admin,
      body: { type: 'template', template: { name: 'anything_goes', language: 'en_US' } },
    });
    expect(answer.status).toBe(201);
    await eventually(async () => expect(graph.sendsTo(phone)).toHaveLength(1));
    const sync = await t.request('POST', '/api/v1/templates/sync', { token: admin });
    expect(sync.status).toBe(422);
    expect(sync.body).toEqual({
      error:
        'There is no template catalogue to sync: no active inbox has a business account (MESSAGING_BUSINESS_ACCOUNT_ID for the default one); template sends are not checked',
    });
    expect(graph.templateRequests()).toEqual([]);
  });
});

/** Twenty languages, and a rare one (de_CH, one template in 200) that a language filter must find without reading the others. */
const LANGUAGES = `ARRAY['en_US', 'pt_BR', 'es_ES', 'de', 'fr', 'it', 'nl', 'pl', 'tr', 'ar', 'hi', 'id', 'ja', 'ko', 'ru', 'sv', 'th', 'uk', 'vi', 'zh_CN']`;

describe('templates list query plan (20,000 templates: a large catalogue of many languages)', () => {
  let t: TestApp;
  let dataSource: DataSource;
  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.app.get(DataSource);
    await dataSource.query(`
      INSERT INTO templates (id, catalogue, name, language, channel_template_id, category, status, parameter_format, components, parameters, created_at, updated_at)
      SELECT md5(i::text)::uuid, 'sandbox', 'template_' || substr(md5('n' || i), 1, 12), CASE WHEN i % 200 = 0 THEN 'de_CH' ELSE (${LANGUAGES})[1 + i % 20] END, i::text,
             'UTILITY', CASE WHEN i % 50 = 0 THEN 'PAUSED' ELSE 'APPROVED' END, 'POSITIONAL', '[]', '{"header":null,"header_text":0,"body":0,"buttons":[]}',
             now() - i * interval '1 second', now() - i * interval '1 second'
      FROM generate_series(1, 20000) AS i`);
    await dataSource.query('VACUUM ANALYZE templates');
  });
  afterAll(() => t.close());

  /** The list of the sandbox's catalogue, the one the app reads (it has no token). */
  const SANDBOX = { catalogues: ['sandbox'] };

  /** The plan of the exact SQL the service runs; sequential scans off, to ask whether an index CAN serve it. */
  async function planOf(filter: TemplateFilter, cursor?: string): Promise<string> {
    const page = Object.assign(new PageQuery(), { cursor });
    const { text: statement, values } = t.app.get(TemplateRepository).listStatement(filter, page).compile();
    return dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const rows: { 'QUERY PLAN': string }[] = await manager.query(`EXPLAIN ${statement}`, values);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it('serves the plain list and its later pages from templates_updated_idx, without sorting', async () => {
    const cursor = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', '00000000-0000-7000-8000-000000000000'])).toString('base64url');
    for (const plan of [await planOf(SANDBOX), await planOf(SANDBOX, cursor)]) {
      expect(plan).toContain('templates_updated_idx');
      expect(plan).not.toMatch(/Sort /);
    }
  });

  it('serves status from templates_status_updated_idx', async () => {
    expect(await planOf({ ...SANDBOX, status: 'PAUSED' })).toContain('templates_status_updated_idx');
  });

  it('serves language from templates_language_updated_idx', async () => {
    expect(await planOf({ ...SANDBOX, language: 'de_CH' })).toContain('templates_language_updated_idx');
  });

  it('serves q from templates_name_search_idx', async () => {
    const name = ((await dataSource.query(`SELECT substr(md5('n4242'), 3, 6) AS part`)) as { part: string }[])[0].part;
    expect(await planOf({ ...SANDBOX, q: name })).toContain('templates_name_search_idx');
    const answer = await t.request('GET', `/api/v1/templates?q=${name}`, { token: await t.adminToken() });
    expect((answer.body.data as { name: string }[]).map((template) => template.name)).toContain(
      `template_${((await dataSource.query(`SELECT substr(md5('n4242'), 1, 12) AS n`)) as { n: string }[])[0].n}`,
    );
  });
});

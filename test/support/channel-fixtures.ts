import { messagesWebhook, newWamid } from '../../scripts/lib/channel-webhook';

/**
 * Webhook bodies of the WhatsApp Cloud API for every kind of message a customer can send, every
 * status and a change's top-level errors, shaped like the samples of Meta's "messages webhook
 * reference" (one page per type): `object`, one entry with the business account id, one change of
 * field `messages` whose value holds `messaging_product`, `metadata`, the sender in `contacts`
 * (absent from system messages, as in Meta's), then `messages`, `statuses` or `errors`. The
 * placeholders are replaced by values of the right shape; phones are digits without "+",
 * timestamps unix seconds as strings.
 */

export const BUSINESS_ACCOUNT_ID = '102290129340398';
export const PHONE_NUMBER_ID = '106540352242922';
export const DISPLAY_PHONE_NUMBER = '15550783881';

type Json = Record<string, unknown>;

const now = () => String(Math.floor(Date.now() / 1000));

/** A whole webhook body around one change value. */
export function webhookOf(value: Json): Json {
  return messagesWebhook(value, {
    businessAccountId: BUSINESS_ACCOUNT_ID,
    phoneNumberId: PHONE_NUMBER_ID,
    displayPhoneNumber: DISPLAY_PHONE_NUMBER,
  });
}

/** A body carrying one customer message, with the sender's profile as Meta sends it. */
export function messageWebhook(from: string, message: Json, options: { profileName?: string | null } = {}): Json {
  const name = options.profileName === undefined ? 'Sheena Nelson' : options.profileName;
  return webhookOf({
    ...(name === null ? {} : { contacts: [{ profile: { name }, wa_id: from }] }),
    messages: [{ from, id: newWamid(), timestamp: now(), ...message }],
  });
}

/** One kind of customer message: how the channel sends it, and what the service must store. */
export interface MessageKindFixture {
  kind: string;
  /** The message without `from`, `id` and `timestamp`. */
  message: Json;
  /** System messages carry no `contacts`. */
  profileName?: null;
  expected: { type: string; text: string | null; content: unknown };
}

const media = {
  sha256: 'f8wFH3kIb1I1mr6sNdXTJRa3uaf1UDNJnvZg7yBC0nE=',
  url: 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1',
};

const image = { caption: 'The receipt', mime_type: 'image/jpeg', ...media, id: '1003383421387256' };
const voice = { mime_type: 'audio/ogg; codecs=opus', ...media, id: '1003383421387257', voice: true };
const video = { caption: 'Unboxing', mime_type: 'video/mp4', ...media, id: '1003383421387258' };
const document = { caption: 'Invoice', filename: 'invoice-1042.pdf', mime_type: 'application/pdf', ...media, id: '1003383421387259' };
const sticker = { mime_type: 'image/webp', ...media, id: '1003383421387260', animated: false };
const location = {
  address: '1 Hacker Way, Menlo Park, CA 94025',
  latitude: 37.483307,
  longitude: -122.148981,
  name: 'Meta Headquarters',
  url: 'https://www.facebook.com',
};
const contactCards = [
  {
    addresses: [
      { city: 'Menlo Park', country: 'United States', country_code: 'us', state: 'CA', street: '1 Hacker Way', type: 'WORK', zip: '94025' },
    ],
    birthday: '1999-01-23',
    emails: [{ email: 'bjohnson@example.com', type: 'WORK' }],
    name: { first_name: 'Barbara', last_name: 'Johnson', formatted_name: 'Barbara J. Johnson' },
    org: { company: 'Lucky Shrub', department: 'Legal', title: 'Lead Counsel' },
    phones: [{ phone: '+1 (415) 555-0123', type: 'WORK', wa_id: '14155550123' }],
    urls: [{ url: 'https://www.luckyshrub.com', type: 'WORK' }],
  },
  { name: { first_name: 'Dae', formatted_name: 'Dae Kim' }, phones: [{ phone: '+1 (415) 555-0124', type: 'CELL', wa_id: '14155550124' }] },
];
const buttonReply = { type: 'button_reply', button_reply: { id: 'confirm-delivery', title: 'Yes, deliver' } };
const listReply = {
  type: 'list_reply',
  list_reply: { id: 'priority_express', title: 'Express shipping', description: 'Next day delivery' },
};
const flowReply = {
  type: 'nfm_reply',
  nfm_reply: { response_json: '{"flow_token":"AQAAAAACS5FpgQ_cAAAAAD0QI3s.","screen_0_rating_0":"5"}', body: 'Sent', name: 'flow' },
};
const quickReply = { payload: 'STOP_PROMOTIONS', text: 'Stop promotions' };
const order = {
  catalog_id: '194836987003835',
  text: 'Please gift wrap',
  product_items: [
    { product_retailer_id: 'di9ozbzfi4', quantity: 2, item_price: 30, currency: 'USD' },
    { product_retailer_id: 'nqryix03ez', quantity: 1, item_price: 25, currency: 'USD' },
  ],
};
const unsupportedErrors = [
  {
    code: 131051,
    title: 'Message type unknown',
    message: 'Message type unknown',
    error_data: { details: 'Message type is currently not supported.' },
  },
];
/** A system message other than a number change: stored in the thread, nothing else. */
const systemNotice = {
  body: "Sheena Nelson's WhatsApp user ID changed",
  type: 'user_changed_user_id',
  user_id: 'US.13491208655302741918',
  previous_user_id: 'US.11816372983637193003',
};
const businessContext = { from: DISPLAY_PHONE_NUMBER, id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUA' };

/** Every kind a customer can send, as the channel sends it, and what is stored. */
export const MESSAGE_KINDS: MessageKindFixture[] = [
  {
    kind: 'text',
    message: { type: 'text', text: { body: 'Is my order shipped?' } },
    expected: { type: 'text', text: 'Is my order shipped?', content: null },
  },
  { kind: 'image', message: { type: 'image', image }, expected: { type: 'image', text: 'The receipt', content: image } },
  { kind: 'voice note', message: { type: 'audio', audio: voice }, expected: { type: 'audio', text: null, content: voice } },
  { kind: 'video', message: { type: 'video', video }, expected: { type: 'video', text: 'Unboxing', content: video } },
  { kind: 'document', message: { type: 'document', document }, expected: { type: 'document', text: 'Invoice', content: document } },
  { kind: 'sticker', message: { type: 'sticker', sticker }, expected: { type: 'sticker', text: null, content: sticker } },
  {
    kind: 'location with a name and address',
    message: { type: 'location', location },
    expected: { type: 'location', text: 'Meta Headquarters, 1 Hacker Way, Menlo Park, CA 94025', content: location },
  },
  {
    kind: 'location shared as a pin',
    message: { type: 'location', location: { latitude: 37.483307, longitude: -122.148981 } },
    expected: { type: 'location', text: '37.483307, -122.148981', content: { latitude: 37.483307, longitude: -122.148981 } },
  },
  {
    kind: 'contacts',
    message: { type: 'contacts', contacts: contactCards },
    expected: { type: 'contacts', text: 'Barbara J. Johnson, Dae Kim', content: { contacts: contactCards } },
  },
  {
    kind: 'interactive button reply',
    message: { type: 'interactive', context: businessContext, interactive: buttonReply },
    expected: { type: 'interactive', text: 'Yes, deliver', content: { ...buttonReply, context: businessContext } },
  },
  {
    kind: 'interactive list reply',
    message: { type: 'interactive', context: businessContext, interactive: listReply },
    expected: { type: 'interactive', text: 'Express shipping', content: { ...listReply, context: businessContext } },
  },
  {
    kind: 'Flows reply (nfm_reply)',
    message: { type: 'interactive', context: businessContext, interactive: flowReply },
    // The form's answers are parsed out of response_json, which stays as the channel sent it.
    expected: {
      type: 'interactive',
      text: 'Sent',
      content: { ...flowReply, response: { flow_token: 'AQAAAAACS5FpgQ_cAAAAAD0QI3s.', screen_0_rating_0: '5' }, context: businessContext },
    },
  },
  {
    kind: 'template quick-reply button',
    message: { type: 'button', context: businessContext, button: quickReply },
    expected: { type: 'button', text: 'Stop promotions', content: { ...quickReply, context: businessContext } },
  },
  {
    kind: 'order',
    message: { type: 'order', order },
    expected: { type: 'order', text: 'Order: 3 items, 2 products, catalog 194836987003835: Please gift wrap', content: order },
  },
  {
    kind: 'system notice',
    message: { type: 'system', system: systemNotice },
    profileName: null,
    expected: { type: 'system', text: systemNotice.body, content: systemNotice },
  },
  {
    kind: 'unsupported',
    message: { type: 'unsupported', errors: unsupportedErrors, unsupported: { type: 'edit' } },
    expected: {
      type: 'unsupported',
      text: null,
      content: { type: 'unsupported', errors: unsupportedErrors, unsupported: { type: 'edit' } },
    },
  },
  {
    kind: 'reaction to a message the service does not know',
    message: {
      type: 'reaction',
      reaction: { message_id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUB', emoji: '\uD83D\uDE00' },
    },
    expected: {
      type: 'reaction',
      text: '😀',
      content: { message_id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUB', emoji: '😀' },
    },
  },
];

/** A text message that came from a click-to-WhatsApp ad: its `referral`. */
export const REFERRAL = {
  source_url: 'https://fb.me/3cr4Wqqkv',
  source_id: '120226305854810726',
  source_type: 'ad',
  body: 'Summer sale: 20% off every plant',
  headline: 'Lucky Shrub summer sale',
  media_type: 'image',
  image_url: 'https://scontent.xx.fbcdn.net/v/t45.1600-4/sale.jpg',
  ctwa_clid: 'ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0HR4irJ6LEkR7JwFF4XvnO2E4Nx0-eM-GABDLOPaOdRMv-_zfUQ2a',
  welcome_message: { text: 'Hi! How can we help you today?' },
};

/** A `user_changed_number` system message from `from` (the old number) to `newWaId`. */
export function numberChangeWebhook(from: string, newWaId: string): Json {
  return messageWebhook(
    from,
    {
      type: 'system',
      system: { body: `User Sheena Nelson changed from ${from} to ${newWaId}`, wa_id: newWaId, type: 'user_changed_number' },
    },
    { profileName: null },
  );
}

/** A customer's reaction to `messageId` (a wamid); without `emoji` it removes the reaction, as the channel sends it. */
export function reactionWebhook(from: string, messageId: string, emoji?: string, options: { id?: string; timestamp?: number } = {}): Json {
  const body = messageWebhook(from, { type: 'reaction', reaction: { message_id: messageId, ...(emoji === undefined ? {} : { emoji }) } });
  const message = ((body.entry as Json[])[0].changes as Json[])[0].value as { messages: Json[] };
  if (options.id) message.messages[0].id = options.id;
  if (options.timestamp) message.messages[0].timestamp = String(options.timestamp);
  return body;
}

/** A status of an outbound message, with the pricing block Meta adds to sent, delivered and read statuses. */
export function statusWebhook(
  channelMessageId: string,
  recipient: string,
  status: 'sent' | 'delivered' | 'read' | 'played' | 'failed',
  options: { category?: string; pricingType?: string; errors?: Json[] } = {},
): Json {
  return webhookOf({
    statuses: [
      {
        id: channelMessageId,
        status,
        timestamp: now(),
        recipient_id: recipient,
        ...(options.category
          ? {
              pricing: {
                billable: options.category !== 'service',
                pricing_model: 'PMP',
                category: options.category,
                type: options.pricingType ?? (options.category === 'service' ? 'free_customer_service' : 'regular'),
              },
            }
          : {}),
        ...(options.errors ? { errors: options.errors } : {}),
      },
    ],
  });
}

/** A change that reports errors about itself, not about a message (`value.errors`). */
export function changeErrorsWebhook(): Json {
  return webhookOf({
    errors: [
      {
        code: 131000,
        title: 'Something went wrong',
        message: 'Something went wrong',
        error_data: { details: 'Message failed to send because of an unknown error.' },
        href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
      },
    ],
  });
}

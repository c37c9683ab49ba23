import type { ChannelTemplate } from '../channel/channel-client';

/**
 * The sandbox channel's own template catalogue, shaped as the Graph API lists templates, so the
 * whole template path (catalogue, parameters, the check of a send) works without an account:
 * WhatsApp's own `hello_world`, a body with two variables, an image header with a body of two and
 * a URL button, named variables, and a coupon code.
 */
export const SANDBOX_TEMPLATES: ChannelTemplate[] = [
  {
    id: '100000000000001',
    name: 'hello_world',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    parameter_format: 'POSITIONAL',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Hello World' },
      {
        type: 'BODY',
        text: 'Welcome and congratulations!! This message demonstrates your ability to send a WhatsApp message notification from the Cloud API, hosted by Meta. Thank you for taking the time to test with us.',
      },
      { type: 'FOOTER', text: 'WhatsApp Business Platform sample message' },
    ],
  },
  {
    id: '100000000000002',
    name: 'order_update',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    parameter_format: 'POSITIONAL',
    components: [
      {
        type: 'BODY',
        text: 'Hi {{1}}, your order {{2}} has shipped and is on its way.',
        example: { body_text: [['Maria', 'A-1001']] },
      },
    ],
  },
  {
    id: '100000000000003',
    name: 'delivery_update',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    parameter_format: 'POSITIONAL',
    components: [
      { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://scontent.whatsapp.net/sample-parcel.jpg'] } },
      {
        type: 'BODY',
        text: 'Hi {{1}}, parcel {{2}} arrives today between 2 and 4 pm.',
        example: { body_text: [['Maria', 'A-1001']] },
      },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'URL', text: 'Track it', url: 'https://example.com/track/{{1}}', example: ['https://example.com/track/A-1001'] },
          { type: 'QUICK_REPLY', text: 'Stop updates' },
        ],
      },
    ],
  },
  {
    id: '100000000000004',
    name: 'appointment_reminder',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    parameter_format: 'NAMED',
    components: [
      {
        type: 'BODY',
        text: 'Hello {{customer_name}}, this is a reminder of your appointment on {{date}}.',
        example: {
          body_text_named_params: [
            { param_name: 'customer_name', example: 'Maria' },
            { param_name: 'date', example: 'May 4' },
          ],
        },
      },
    ],
  },
  {
    id: '100000000000005',
    name: 'spring_discount',
    language: 'en_US',
    status: 'APPROVED',
    category: 'MARKETING',
    parameter_format: 'POSITIONAL',
    components: [
      { type: 'BODY', text: 'Use code {{1}} for 20% off until Sunday.', example: { body_text: [['SPRING20']] } },
      { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'SPRING20' }] },
    ],
  },
];

import type { MessageToSend } from '../conversations/message.entity';
import type { OutboundMessage } from './messaging-channel';

/**
 * A stored outbound message in the Graph API's shape. Messages keep what the API took
 * (`{"type":"template","template":{"name","language":"en_US",…}}`); the channel wants the text in
 * `{body}` and a template's language as `{code}`. Media payloads are the same on both sides.
 */
export function toOutboundMessage(message: MessageToSend): OutboundMessage {
  const content = message.content ?? {};
  if (message.type === 'text') return { to: message.customer_phone, type: 'text', content: { body: message.text, preview_url: false } };
  if (message.type === 'template') {
    // Rows written before messages kept the API's shape already hold `{code}`.
    const language = typeof content.language === 'string' ? { code: content.language } : content.language;
    return { to: message.customer_phone, type: 'template', content: { ...content, language } };
  }
  return { to: message.customer_phone, type: message.type, content };
}

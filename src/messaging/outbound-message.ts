import type { MessageToSend } from '../conversations/message.entity';
import type { OutboundMessage } from './messaging-channel';

/**
 * A stored outbound message in the Graph API's shape. Messages keep what the API took
 * (`{"type":"template","template":{"name","language":"en_US",…}}`); the channel wants the text in
 * `{body}` and a template's language as `{code}`. Media by link is the same on both sides; media
 * by `media_id` (ours) goes by the channel's `id` for the upload, `channelMediaId`.
 */
export function toOutboundMessage(message: MessageToSend, channelMediaId: string | null = null): OutboundMessage {
  const content = message.content ?? {};
  if (message.type === 'text') return { to: message.customer_phone, type: 'text', content: { body: message.text, preview_url: false } };
  if (message.type === 'template') {
    // Rows written before messages kept the API's shape already hold `{code}`.
    const language = typeof content.language === 'string' ? { code: content.language } : content.language;
    return { to: message.customer_phone, type: 'template', content: { ...content, language } };
  }
  if (channelMediaId !== null) {
    const { media_id: _ours, ...rest } = content;
    return { to: message.customer_phone, type: message.type, content: { id: channelMediaId, ...rest } };
  }
  return { to: message.customer_phone, type: message.type, content };
}

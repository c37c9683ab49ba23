import type { MessageToSend } from '../conversations/message.entity';
import type { ReactionToSend } from '../conversations/reaction.entity';
import type { CustomerAddress, OutboundMessage } from '../channel/channel-client';

/**
 * A stored outbound message in the Graph API's shape. Messages keep what the API took
 * (`{"type":"template","template":{"name","language":"en_US",…}}`); the channel wants the text in
 * `{body}` and a template's language as `{code}`. Media by link is the same on both sides; media
 * by `media_id` (ours) goes by the channel's `id` for the upload, `channelMediaId`, as does the
 * media header of an interactive message, which the channel otherwise takes as the API took it.
 */
export function toOutboundMessage(message: MessageToSend, channelMediaId: string | null = null): OutboundMessage {
  // A reply quotes the channel id its quoted message had when the send was claimed; without one (it never reached the channel), no quote.
  const context = message.reply_to_channel_message_id ? { context: { message_id: message.reply_to_channel_message_id } } : {};
  const content = message.content ?? {};
  if (message.type === 'text')
    return { to: addressOf(message), type: 'text', content: { body: message.text, preview_url: false }, ...context };
  if (message.type === 'template') {
    // Rows written before messages kept the API's shape already hold `{code}`.
    const language = typeof content.language === 'string' ? { code: content.language } : content.language;
    const components = channelMediaId === null ? content.components : withHeaderMedia(content.components, channelMediaId);
    return {
      to: addressOf(message),
      type: 'template',
      content: { ...content, language, ...(components === undefined ? {} : { components }) },
      ...context,
    };
  }
  if (message.type === 'interactive')
    return { to: addressOf(message), type: 'interactive', content: toChannelInteractive(content, channelMediaId), ...context };
  if (channelMediaId !== null)
    return { to: addressOf(message), type: message.type, content: byChannelId(content, channelMediaId), ...context };
  return { to: addressOf(message), type: message.type, content, ...context };
}

/** An agent's reaction as the Graph API takes it: `{"type":"reaction","reaction":{"message_id":<wamid>,"emoji":…}}` ('' removes it). */
export function toOutboundReaction(reaction: ReactionToSend): OutboundMessage {
  return {
    to: addressOf(reaction),
    type: 'reaction',
    content: { message_id: reaction.target_channel_message_id, emoji: reaction.emoji },
  };
}

function addressOf(work: { customer_phone: string | null; customer_wa_user_id: string | null }): CustomerAddress {
  return { phone: work.customer_phone, userId: work.customer_wa_user_id };
}

/**
 * An interactive payload as the channel takes it: a media header uploaded here goes by the
 * channel's id of the upload, and a flow says the version of flow messages the service sends
 * (`flow_message_version` "3", which the channel requires) when the API left it out.
 */
function toChannelInteractive(content: Record<string, unknown>, channelMediaId: string | null): Record<string, unknown> {
  let interactive = content;
  const header = content.header as Record<string, unknown> | undefined;
  const kind = typeof header?.type === 'string' ? header.type : null;
  if (channelMediaId !== null && kind !== null) {
    interactive = { ...interactive, header: { ...header, [kind]: byChannelId(header![kind] as Record<string, unknown>, channelMediaId) } };
  }
  if (interactive.type !== 'flow') return interactive;
  const action = interactive.action as { name: string; parameters: Record<string, unknown> };
  return { ...interactive, action: { ...action, parameters: { flow_message_version: '3', ...action.parameters } } };
}

/** A template's components with the header's upload (`media_id: med_…`) named by the channel's id of it, as the Graph API takes it. */
function withHeaderMedia(components: unknown, channelMediaId: string): unknown {
  if (!Array.isArray(components)) return components;
  return components.map((component: Record<string, unknown>) => {
    if (String(component.type).toLowerCase() !== 'header' || !Array.isArray(component.parameters)) return component;
    return {
      ...component,
      parameters: (component.parameters as Record<string, unknown>[]).map((parameter) => {
        const format = String(parameter.type).toLowerCase();
        const media = parameter[format] as Record<string, unknown> | undefined;
        if (!media || media.media_id === undefined) return parameter;
        return { ...parameter, [format]: byChannelId(media, channelMediaId) };
      }),
    };
  });
}

/** A media object (`{media_id: "med_…", caption, …}`) naming the channel's upload of our media instead: `{id, caption, …}`. */
function byChannelId(media: Record<string, unknown>, channelMediaId: string): Record<string, unknown> {
  const { media_id: _ours, ...rest } = media;
  return { id: channelMediaId, ...rest };
}

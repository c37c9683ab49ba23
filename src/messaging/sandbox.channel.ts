import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { ChannelTemplate } from '../templates/template.entity';
import { ChannelHealth, MessagingChannel, OutboundMessage } from './messaging-channel';
import { SANDBOX_TEMPLATES } from './sandbox-templates';

/**
 * The channel when MESSAGING_ACCESS_TOKEN is unset: every send is accepted here and logged, and
 * it has a small template catalogue of its own, so the inbox can be tried end to end on a machine
 * with no WhatsApp account.
 */
@Injectable()
export class SandboxChannel extends MessagingChannel {
  readonly hasTemplateCatalogue = true;
  private readonly logger = new Logger('SandboxChannel');

  send(message: OutboundMessage): Promise<string> {
    const id = `wamid.sandbox.${randomBytes(12).toString('hex')}`;
    this.logger.log(`Sandbox accepted a ${message.type} message to ${message.to} as ${id}`);
    return Promise.resolve(id);
  }

  markRead(channelMessageId: string): Promise<void> {
    this.logger.log(`Sandbox accepted a read receipt for ${channelMessageId}`);
    return Promise.resolve();
  }

  health(): Promise<ChannelHealth> {
    return Promise.resolve({ ok: true, channel: 'sandbox' });
  }

  listTemplates(): Promise<ChannelTemplate[]> {
    return Promise.resolve(structuredClone(SANDBOX_TEMPLATES));
  }
}

import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ConversationsModule } from '../conversations/conversations.module';
import { TemplatesModule } from '../templates/templates.module';
import { ChannelTemplateSource } from './channel-template-source';
import { MediaModule } from '../media/media.module';
import { GraphApiChannel } from './graph-api.channel';
import { MediaDownloadProcessor } from './media-download.processor';
import { SendJournal } from './send-journal';
import { MessageSendProcessor } from './message-send.processor';
import { MessagingChannel } from './messaging-channel';
import { ReactionSendProcessor } from './reaction-send.processor';
import { ReadReceiptProcessor } from './read-receipt.processor';
import { SandboxChannel } from './sandbox.channel';

/** The only place that knows whether messages and media go to (and come from) the WhatsApp Cloud API or the sandbox, media and where templates come from. */
@Module({
  imports: [ConversationsModule, TemplatesModule, MediaModule],
  providers: [
    {
      provide: MessagingChannel,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => (config.messagingAccessToken ? new GraphApiChannel(config) : new SandboxChannel(config)),
    },
    MessageSendProcessor,
    ReactionSendProcessor,
    ReadReceiptProcessor,
    MediaDownloadProcessor,
    SendJournal,
    ChannelTemplateSource,
  ],
  exports: [MessagingChannel],
})
export class MessagingModule {}

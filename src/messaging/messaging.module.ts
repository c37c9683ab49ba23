import { Global, Module } from '@nestjs/common';
import { ChannelClient } from '../channel/channel-client';
import { AppConfig } from '../config/app-config';
import { GraphApiChannel } from './graph-api.channel';
import { SandboxChannel } from './sandbox.channel';

/**
 * The only place that knows whether messages, media and templates go to (and come from) the
 * WhatsApp Cloud API or the sandbox: it provides the ChannelClient port to every module, whose
 * jobs (sends, receipts, downloads, the template sync) live beside the rows they change.
 */
@Global()
@Module({
  providers: [
    {
      provide: ChannelClient,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => (config.messagingAccessToken ? new GraphApiChannel(config) : new SandboxChannel(config)),
    },
  ],
  exports: [ChannelClient],
})
export class MessagingModule {}

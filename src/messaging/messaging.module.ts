import { Global, Module } from '@nestjs/common';
import { ChannelClient } from '../channel/channel-client';
import { AppConfig } from '../config/app-config';
import { ChannelFactory } from './channel-factory';

/**
 * The only place that knows whether messages, media and templates go to (and come from) the
 * WhatsApp Cloud API or the sandbox: it provides the ChannelClient port of the default inbox (as
 * the MESSAGING_* settings describe it) and the ChannelFactory that makes one for any inbox's
 * account, to every module, whose jobs (sends, receipts, downloads, the template sync) live
 * beside the rows they change.
 */
@Global()
@Module({
  providers: [
    ChannelFactory,
    {
      provide: ChannelClient,
      inject: [AppConfig, ChannelFactory],
      useFactory: (config: AppConfig, channels: ChannelFactory) =>
        channels.create(
          config.messagingAccessToken === null
            ? null
            : {
                phoneNumberId: config.messagingPhoneNumberId!,
                accessToken: config.messagingAccessToken,
                businessAccountId: config.messagingBusinessAccountId,
              },
        ),
    },
  ],
  exports: [ChannelClient, ChannelFactory],
})
export class MessagingModule {}

import { Injectable } from '@nestjs/common';
import { type ChannelAccount, ChannelClient } from '../channel/channel-client';
import { AppConfig } from '../config/app-config';
import { GraphApiChannel } from './graph-api.channel';
import { SandboxChannel } from './sandbox.channel';

/** Makes the channel of one account: the Cloud API for a number with a token, else the one sandbox of the install. */
@Injectable()
export class ChannelFactory {
  /** Every inbox without a token shares it: its media and catalogue live in DATA_DIR. */
  private readonly sandbox: SandboxChannel;

  constructor(private readonly config: AppConfig) {
    this.sandbox = new SandboxChannel(config);
  }

  create(account: ChannelAccount | null): ChannelClient {
    return account === null ? this.sandbox : new GraphApiChannel(account, this.config.messagingApiBaseUrl);
  }
}

import { Injectable, OnModuleInit } from '@nestjs/common';
import { TemplatesService } from '../templates/templates.service';
import { MessagingChannel } from './messaging-channel';

/**
 * Hands the channel to the template catalogue as its source, when the channel has a catalogue
 * (the sandbox's own, or the business account's): the templates module knows no channel.
 */
@Injectable()
export class ChannelTemplateSource implements OnModuleInit {
  constructor(
    private readonly channel: MessagingChannel,
    private readonly templates: TemplatesService,
  ) {}

  onModuleInit(): void {
    if (this.channel.hasTemplateCatalogue) this.templates.useSource(this.channel);
  }
}

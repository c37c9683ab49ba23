import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppConfig } from '../config/app-config';
import {
  ChannelClient,
  ChannelError,
  ChannelHealth,
  ChannelMediaDownload,
  ChannelMediaUpload,
  type ChannelTemplate,
  catalogueOf,
  OutboundMessage,
} from '../channel/channel-client';
import { SANDBOX_TEMPLATES } from './sandbox-templates';
import { SANDBOX_MEDIA_DIRECTORY, type SandboxMediaInfo } from './sandbox-media';

/** A sandbox media id names a file in that directory: nothing else may. */
const SANDBOX_MEDIA_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The channel when MESSAGING_ACCESS_TOKEN is unset: every send is accepted here and logged, and
 * it has a small template catalogue of its own, so the inbox can be tried end to end on a machine
 * with no WhatsApp account. Media the channel would
 * hold lives in `DATA_DIR/sandbox-media/` (an id, its bytes and `<id>.json`): uploads for sending
 * land there, and a customer's media is downloaded from there; an id it does not hold fails.
 */
export class SandboxChannel extends ChannelClient {
  readonly catalogue = catalogueOf(null);
  private readonly logger = new Logger('SandboxChannel');
  private readonly directory: string;

  constructor(config: AppConfig) {
    super();
    this.directory = resolve(config.dataDir, SANDBOX_MEDIA_DIRECTORY);
  }

  send(message: OutboundMessage): Promise<string> {
    const id = `wamid.sandbox.${randomBytes(12).toString('hex')}`;
    this.logger.log(`Sandbox accepted a ${message.type} message to ${message.to.phone ?? message.to.userId} as ${id}`);
    return Promise.resolve(id);
  }

  markRead(channelMessageId: string): Promise<void> {
    this.logger.log(`Sandbox accepted a read receipt for ${channelMessageId}`);
    return Promise.resolve();
  }

  showTyping(channelMessageId: string): Promise<void> {
    this.logger.log(`Sandbox showed "typing…" for ${channelMessageId}`);
    return Promise.resolve();
  }

  /** The service checked the customer's 24 hours before asking: the sandbox accepts what it is asked. */
  block(user: string): Promise<void> {
    this.logger.log(`Sandbox blocked ${user}`);
    return Promise.resolve();
  }

  unblock(user: string): Promise<void> {
    this.logger.log(`Sandbox unblocked ${user}`);
    return Promise.resolve();
  }

  health(): Promise<ChannelHealth> {
    return Promise.resolve({ ok: true, channel: 'sandbox' });
  }

  listTemplates(): Promise<ChannelTemplate[]> {
    return Promise.resolve(structuredClone(SANDBOX_TEMPLATES));
  }

  async downloadMedia(channelMediaId: string): Promise<ChannelMediaDownload> {
    const unknown = new ChannelError(
      `The sandbox channel has no media ${JSON.stringify(channelMediaId.slice(0, 100))} (put it in ${this.directory} as <id> and <id>.json)`,
      false,
    );
    if (!SANDBOX_MEDIA_ID.test(channelMediaId)) throw unknown;
    let info: SandboxMediaInfo;
    try {
      info = JSON.parse(await readFile(join(this.directory, `${channelMediaId}.json`), 'utf8')) as SandboxMediaInfo;
    } catch {
      throw unknown;
    }
    const body = createReadStream(join(this.directory, channelMediaId));
    await new Promise<void>((resolveOpen, reject) => {
      body.once('open', () => resolveOpen());
      body.once('error', () => reject(unknown));
    });
    return { mimeType: info.mime_type, sha256: info.sha256 ?? null, size: info.file_size, body };
  }

  async uploadMedia(media: ChannelMediaUpload): Promise<string> {
    const id = `sandbox-${randomBytes(12).toString('hex')}`;
    await mkdir(this.directory, { recursive: true });
    const partial = join(this.directory, `.${id}`);
    try {
      await pipeline(media.body, createWriteStream(partial));
      await rename(partial, join(this.directory, id));
    } catch (error) {
      await rm(partial, { force: true });
      throw new ChannelError(`The sandbox channel could not keep the upload: ${(error as Error).message}`, true);
    }
    await writeFile(
      join(this.directory, `${id}.json`),
      JSON.stringify({ mime_type: media.mimeType, file_size: media.size, filename: media.filename }),
    );
    this.logger.log(`Sandbox accepted an upload of ${media.size} bytes (${media.mimeType}) as ${id}`);
    return id;
  }
}

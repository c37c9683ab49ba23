import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { MediaService } from './media.service';

const EVERY_MS = 15 * 60_000;
/** Replicas started together spread their runs over this much. */
const JITTER_MS = 60_000;

/** Deletes the uploads no message was sent with once they are MEDIA_UPLOAD_TTL old, every 15 minutes. */
@Injectable()
export class UnsentUploadCleanup implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(UnsentUploadCleanup.name);
  private readonly task = new PeriodicTask({
    name: 'unsent-upload-cleanup',
    run: () => this.media.deleteUnsentUploads().then(() => undefined),
    everyMs: () => EVERY_MS + Math.random() * JITTER_MS,
    failed: (error) => this.logger.warn(`Deleting unsent uploads failed, trying again in 15 minutes: ${error.message}`),
  });

  constructor(private readonly media: MediaService) {}

  onApplicationBootstrap(): void {
    this.task.start(Math.random() * JITTER_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }
}

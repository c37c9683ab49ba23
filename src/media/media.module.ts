import { InboxesModule } from '../inboxes/inboxes.module';
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../config/app-config';
import { FilesystemMediaStore } from './filesystem-media-store';
import { MediaController } from './media.controller';
import { MediaDownloadProcessor } from './media-download.processor';
import { MediaRepository } from './media.repository';
import { MediaService } from './media.service';
import { MediaStore } from './media-store';
import { S3MediaStore } from './s3-media-store';
import { UnsentUploadCleanup } from './unsent-upload-cleanup';

/** Media: the `media` table, the store of their bytes (file system or S3), uploads and the signed download route. */
@Module({
  imports: [AuthModule, InboxesModule],
  controllers: [MediaController],
  providers: [
    {
      provide: MediaStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        config.mediaStore === 's3' ? new S3MediaStore(config) : new FilesystemMediaStore(config.mediaDir),
    },
    MediaRepository,
    MediaService,
    MediaDownloadProcessor,
    UnsentUploadCleanup,
  ],
  exports: [MediaService],
})
export class MediaModule {}

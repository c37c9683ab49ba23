import { Module } from '@nestjs/common';
import { CannedResponseRepository } from './canned-response.repository';
import { CannedResponsesController } from './canned-responses.controller';
import { CannedResponsesService } from './canned-responses.service';

@Module({
  controllers: [CannedResponsesController],
  providers: [CannedResponseRepository, CannedResponsesService],
})
export class CannedResponsesModule {}

import { Global, Module } from '@nestjs/common';
import { RecordedWork } from './recorded-work';
import { RecordedWorkRepository } from './recorded-work.repository';

/** Global: every module that records work after a commit registers its kinds with the one engine. */
@Global()
@Module({
  providers: [RecordedWorkRepository, RecordedWork],
  exports: [RecordedWork],
})
export class RecordedWorkModule {}

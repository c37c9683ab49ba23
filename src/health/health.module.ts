import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { AuthModule } from '../auth/auth.module';
import { InboxesModule } from '../inboxes/inboxes.module';
import { HealthController } from './health.controller';
import { RedisHealth } from './redis-health';

@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' }), AuthModule, InboxesModule],
  controllers: [HealthController],
  providers: [RedisHealth],
})
export class HealthModule {}

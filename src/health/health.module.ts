import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { MessagingModule } from '../messaging/messaging.module';
import { HealthController } from './health.controller';
import { RedisHealth } from './redis-health';

@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' }), MessagingModule],
  controllers: [HealthController],
  providers: [RedisHealth],
})
export class HealthModule {}

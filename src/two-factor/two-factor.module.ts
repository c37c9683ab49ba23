import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { UsersModule } from '../users/users.module';
import { TwoFactorController } from './two-factor.controller';
import { TwoFactorRepository } from './two-factor.repository';
import { TwoFactorService } from './two-factor.service';

@Module({
  imports: [UsersModule, AuthModule],
  controllers: [TwoFactorController],
  providers: [TwoFactorRepository, TwoFactorService],
  exports: [TwoFactorService],
})
export class TwoFactorModule {}

import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { createSecretKey } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { AuthTokenService } from './auth-token.service';
import { SignedUrls } from './signed-urls';

@Module({
  imports: [
    UsersModule,
    JwtModule.registerAsync({
      inject: [AppConfig],
      // A KeyObject, not the string: given a string, jsonwebtoken first tries to parse it as a
      // public key on every verification, which cost ~0.4 ms per request (measured by the bench).
      useFactory: (config: AppConfig) => ({
        secret: createSecretKey(Buffer.from(config.sessionSecret, 'utf8')),
        signOptions: { algorithm: 'HS256' },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [AuthService, AuthTokenService, AuthGuard, SignedUrls],
  exports: [AuthService, AuthTokenService, AuthGuard, SignedUrls],
})
export class AuthModule {}

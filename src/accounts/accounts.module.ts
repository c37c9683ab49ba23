import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MailModule } from '../mail/mail.module';
import { TwoFactorModule } from '../two-factor/two-factor.module';
import { UsersModule } from '../users/users.module';
import { LoginController } from './login.controller';
import { LoginFailureRepository } from './login-failure.repository';
import { LoginService } from './login.service';
import { MfaTokens } from './mfa-tokens';
import { AccountTokenRepository } from './account-token.repository';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { UserInvitationsController } from './user-invitations.controller';

/** Logging in and out, users created and invited, invitations accepted, passwords reset, one's own profile: the account's life. */
@Module({
  imports: [UsersModule, AuthModule, MailModule, TwoFactorModule],
  controllers: [LoginController, UserInvitationsController, AccountsController],
  providers: [AccountTokenRepository, AccountsService, LoginService, LoginFailureRepository, MfaTokens],
})
export class AccountsModule {}

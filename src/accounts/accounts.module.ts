import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MailModule } from '../mail/mail.module';
import { UsersModule } from '../users/users.module';
import { AccountTokenRepository } from './account-token.repository';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { UserInvitationsController } from './user-invitations.controller';

/** Users created and invited, invitations accepted, passwords reset, one's own profile: the account's life by e-mail. */
@Module({
  imports: [UsersModule, AuthModule, MailModule],
  controllers: [UserInvitationsController, AccountsController],
  providers: [AccountTokenRepository, AccountsService],
})
export class AccountsModule {}

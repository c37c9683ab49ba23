import { Body, Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LoginResponse } from '../auth/auth.dto';
import { AllowBeforeSecondFactor, Public } from '../auth/auth.decorators';
import { CurrentUser } from '../users/current-user.decorator';
import { SessionOnly } from '../users/roles.decorator';
import { ApiErrors } from '../common/api-errors';
import { LoginRateLimit, PasswordResetRateLimit } from '../common/rate-limit.decorators';
import { MeResponse } from '../users/user.dto';
import type { UserRow } from '../users/user.entity';
import { AcceptInvitationDto, ForgotPasswordDto, ProfileResponse, ResetPasswordDto, UpdateProfileDto } from './account.dto';
import { AccountsService } from './accounts.service';

/** One's own account: accepting an invitation, a forgotten password, one's profile. */
@ApiTags('Authentication')
@Controller('v1')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post('auth/accept-invite')
  @Public()
  @LoginRateLimit()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Accept an invitation: choose a password (and name), and be logged in',
    description:
      'Answers like login. The token of the link works once, within 72 hours, and only while the user is invited with the address it was sent to; otherwise 400. Limited per client IP with login.',
  })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrors(400, 429)
  acceptInvite(@Body() dto: AcceptInvitationDto): Promise<LoginResponse> {
    return this.accounts.acceptInvitation(dto);
  }

  @Post('auth/forgot-password')
  @Public()
  @PasswordResetRateLimit()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Ask for a password reset link by e-mail',
    description: [
      'Always 202 with no body, whether or not the address belongs to anyone: the answer is sent before the address is looked up, so neither it nor its timing tells.',
      'An active user with this address is e-mailed a link to `<APP_URL>/reset-password?token=…`, valid one hour and once; an earlier unused link stops working. Unknown and invited addresses get nothing.',
      'Limited per client IP (with login) and per address (PASSWORD_RESET_RATE_LIMIT_MAX_REQUESTS per PASSWORD_RESET_RATE_LIMIT_WINDOW_MS), 429 past either.',
    ].join('\n\n'),
  })
  @ApiAcceptedResponse({ description: 'Taken: a link goes out if the address is an active user' })
  @ApiErrors(400, 429)
  forgotPassword(@Body() dto: ForgotPasswordDto): void {
    this.accounts.requestPasswordReset(dto.email);
  }

  @Post('auth/reset-password')
  @Public()
  @LoginRateLimit()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Choose a new password with a reset link',
    description:
      "The token works once, within the hour, and not after the user's password changed or they logged out since it was sent (400 otherwise). Every token of the user stops working, on every instance: they log in again.",
  })
  @ApiNoContentResponse()
  @ApiErrors(400, 429)
  resetPassword(@Body() dto: ResetPasswordDto): Promise<void> {
    return this.accounts.resetPassword(dto);
  }

  @Get('me')
  @AllowBeforeSecondFactor()
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The authenticated user, with their own preferences (email_notifications)' })
  @ApiOkResponse({ type: MeResponse })
  @ApiErrors(401, 403, 429)
  me(@CurrentUser() user: UserRow): MeResponse {
    return this.accounts.me(user);
  }

  @Patch('me')
  @SessionOnly()
  @AllowBeforeSecondFactor()
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Change one's own name, password or notification e-mails",
    description: [
      'Any of `name`, `password` (with `current_password`) and `email_notifications` (`off`, `immediate`, `digest`).',
      'A new password revokes every token issued before, the one of this request included (tokens are stateless: they carry a generation that the password change ends); the answer carries the new `token` and its `expires_at`, which the client uses from then on.',
      'A wrong `current_password` is a 422.',
    ].join('\n\n'),
  })
  @ApiOkResponse({ type: ProfileResponse })
  @ApiErrors(400, 401, 403, 422, 429)
  updateProfile(@CurrentUser() user: UserRow, @Body() dto: UpdateProfileDto): Promise<ProfileResponse> {
    return this.accounts.updateProfile(user, dto);
  }
}

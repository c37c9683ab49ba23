import { Body, Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PublicIdPipe } from '../common/public-id.pipe';
import { LoginRateLimit } from '../common/rate-limit.decorators';
import { Roles, SessionOnly } from '../users/roles.decorator';
import type { UserRow } from '../users/user.entity';
import type { Access } from '../auth/access';
import { AllowBeforeSecondFactor, CurrentAccess, Public } from '../auth/auth.decorators';
import { CurrentUser } from '../users/current-user.decorator';
import { LoginResponse } from '../auth/auth.dto';
import { LoginDto, LoginMfaDto, LogoutQuery, MfaChallengeResponse } from './login.dto';
import { LoginService } from './login.service';

@ApiTags('Authentication')
@Controller('v1')
export class LoginController {
  constructor(private readonly auth: LoginService) {}

  @Post('auth/login')
  @Public()
  @LoginRateLimit()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange an e-mail and password for a bearer token, or for the second step when the user has two-factor login',
    description:
      'Limited per client IP (LOGIN_RATE_LIMIT_MAX_REQUESTS per LOGIN_RATE_LIMIT_WINDOW_MS; does not count toward the per-user limit) and per account: 10 failed logins within 15 minutes lock the account\'s login for 15 minutes (429 with Retry-After), whatever the addresses, and e-mail its owner. With two-factor login on, answers `{"mfa_required": true, "mfa_token"}`: continue at POST /api/v1/auth/login/mfa.',
  })
  @ApiExtraModels(LoginResponse, MfaChallengeResponse)
  @ApiOkResponse({ schema: { oneOf: [{ $ref: getSchemaPath(LoginResponse) }, { $ref: getSchemaPath(MfaChallengeResponse) }] } })
  @ApiErrors(400, 401, 429)
  login(@Body() dto: LoginDto): Promise<LoginResponse | MfaChallengeResponse> {
    return this.auth.login(dto);
  }

  @Post('auth/login/mfa')
  @Public()
  @LoginRateLimit()
  @HttpCode(200)
  @ApiOperation({
    summary: "A login's second step: the mfa_token and a code of the authenticator app (or a recovery code), for a bearer token",
    description:
      'A wrong code counts as a failed login of the account (see POST /api/v1/auth/login). A code works once; a recovery code too.',
  })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrors(400, 401, 429)
  loginMfa(@Body() dto: LoginMfaDto): Promise<LoginResponse> {
    return this.auth.loginWithSecondFactor(dto);
  }

  @Post('auth/logout')
  @SessionOnly()
  @AllowBeforeSecondFactor()
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Revoke the token this is called with (this device); with everywhere=true, every token of the caller',
    description: 'Open event streams of the revoked tokens end within seconds. API tokens are revoked at DELETE /api/v1/api-tokens/{id}.',
  })
  @ApiNoContentResponse()
  @ApiErrors(400, 401, 403, 429)
  logout(@CurrentUser() user: UserRow, @CurrentAccess() access: Access, @Query() query: LogoutQuery): Promise<void> {
    return this.auth.logout(user, access, query.everywhere === 'true');
  }

  @Post('users/:id/unlock')
  @Roles('admin')
  @SessionOnly()
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({ summary: "Lift a user's login lockout and forget their failed logins (admin)" })
  @ApiNoContentResponse()
  @ApiErrors(401, 403, 404, 429)
  unlock(@Param('id', new PublicIdPipe('user', 'User')) id: string): Promise<void> {
    return this.auth.unlock(id);
  }
}

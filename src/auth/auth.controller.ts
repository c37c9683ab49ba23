import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { LoginRateLimit } from '../common/rate-limit.decorators';
import { MeResponse } from '../users/user.dto';
import type { UserRow } from '../users/user.entity';
import { CurrentUser, Public } from './auth.decorators';
import { LoginDto, LoginResponse } from './auth.dto';
import { AuthService } from './auth.service';

@ApiTags('Authentication')
@Controller('v1')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('auth/login')
  @Public()
  @LoginRateLimit()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange an e-mail and password for a bearer token',
    description:
      'Limited per client IP (LOGIN_RATE_LIMIT_MAX_REQUESTS per LOGIN_RATE_LIMIT_WINDOW_MS); does not count toward the per-user limit.',
  })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrors(400, 401, 429)
  login(@Body() dto: LoginDto): Promise<LoginResponse> {
    return this.auth.login(dto);
  }

  @Post('auth/logout')
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Revoke every token of the caller (all devices)' })
  @ApiNoContentResponse()
  @ApiErrors(401, 429)
  logout(@CurrentUser() user: UserRow): Promise<void> {
    return this.auth.logout(user);
  }

  @Get('me')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The authenticated user, with their own preferences (email_notifications)' })
  @ApiOkResponse({ type: MeResponse })
  @ApiErrors(401, 403, 429)
  me(@CurrentUser() user: UserRow): MeResponse {
    return MeResponse.of(user);
  }
}

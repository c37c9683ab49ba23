import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowBeforeSecondFactor } from '../auth/auth.decorators';
import { CurrentUser } from '../users/current-user.decorator';
import { ApiErrors } from '../common/api-errors';
import { PublicIdPipe } from '../common/public-id.pipe';
import { Roles, SessionOnly } from '../users/roles.decorator';
import type { UserRow } from '../users/user.entity';
import { BeginTwoFactorDto, RecoveryCodesResponse, TwoFactorCodeDto, TwoFactorSecretResponse } from './two-factor.dto';
import { TwoFactorService } from './two-factor.service';

@ApiTags('Two-factor login')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1')
export class TwoFactorController {
  constructor(private readonly twoFactor: TwoFactorService) {}

  @Post('me/2fa')
  @SessionOnly()
  @AllowBeforeSecondFactor()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start two-factor enrolment: a new TOTP secret and its otpauth:// URL (show it as a QR code)',
    description: 'Needs the current password. Replaces a secret not yet enabled; 409 when two-factor login is on already.',
  })
  @ApiOkResponse({ type: TwoFactorSecretResponse })
  @ApiErrors(400, 409, 422)
  begin(@CurrentUser() user: UserRow, @Body() dto: BeginTwoFactorDto): Promise<TwoFactorSecretResponse> {
    return this.twoFactor.begin(user, dto.password);
  }

  @Post('me/2fa/enable')
  @SessionOnly()
  @AllowBeforeSecondFactor()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Turn two-factor login on with a code of the new secret; answers 10 recovery codes, once',
    description: 'From now on login answers `mfa_required` and a code is asked at POST /api/v1/auth/login/mfa.',
  })
  @ApiOkResponse({ type: RecoveryCodesResponse })
  @ApiErrors(400, 409, 422)
  enable(@CurrentUser() user: UserRow, @Body() dto: TwoFactorCodeDto): Promise<RecoveryCodesResponse> {
    return this.twoFactor.enable(user, dto.code);
  }

  @Delete('me/2fa')
  @SessionOnly()
  @HttpCode(204)
  @ApiOperation({ summary: 'Turn two-factor login off, with a current code or a recovery code' })
  @ApiNoContentResponse()
  @ApiErrors(400, 422)
  disable(@CurrentUser() user: UserRow, @Body() dto: TwoFactorCodeDto): Promise<void> {
    return this.twoFactor.disable(user, dto.code);
  }

  @Delete('users/:id/2fa')
  @Roles('admin')
  @SessionOnly()
  @HttpCode(204)
  @ApiOperation({ summary: "Turn a user's two-factor login off, for a lost device (admin)" })
  @ApiNoContentResponse()
  @ApiErrors(404, 422)
  reset(@CurrentUser() admin: UserRow, @Param('id', new PublicIdPipe('user', 'User')) id: string): Promise<void> {
    return this.twoFactor.reset(admin, id);
  }
}

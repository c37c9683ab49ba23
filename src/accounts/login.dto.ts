import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, MaxLength } from 'class-validator';
import { IsOmittable } from '../common/omittable';

export class LoginDto {
  @ApiProperty({ example: 'admin@localhost' })
  @IsString()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ writeOnly: true })
  @IsString()
  @MaxLength(256)
  password!: string;
}

export class MfaChallengeResponse {
  @ApiProperty({
    enum: [true],
    description: 'The password was right and the user has two-factor login: send a code to POST /api/v1/auth/login/mfa',
  })
  mfa_required!: true;

  @ApiProperty({ description: 'Valid 5 minutes, for POST /api/v1/auth/login/mfa' })
  mfa_token!: string;
}

export class LoginMfaDto {
  @ApiProperty()
  @IsString()
  @Length(1, 2000)
  mfa_token!: string;

  @ApiProperty({ example: '492039', description: 'A current code of the authenticator app, or one of the recovery codes' })
  @IsString()
  @Length(1, 32)
  code!: string;
}

export class LogoutQuery {
  @ApiPropertyOptional({ description: 'true: end every session of the user, on every device (API tokens stay)', default: false })
  @IsOmittable()
  @IsIn(['true', 'false'])
  everywhere?: 'true' | 'false';
}

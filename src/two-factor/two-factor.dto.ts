import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class BeginTwoFactorDto {
  @ApiProperty({ writeOnly: true, description: 'The current password: a session alone cannot add a second factor to an account' })
  @IsString()
  @Length(1, 256)
  password!: string;
}

export class TwoFactorCodeDto {
  @ApiProperty({ example: '492039', description: 'A current code of the authenticator app, or one of the recovery codes' })
  @IsString()
  @Length(1, 32)
  code!: string;
}

export class TwoFactorSecretResponse {
  @ApiProperty({
    description: 'The TOTP secret in base32, for typing into an app that cannot scan',
    example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  })
  secret!: string;

  @ApiProperty({
    example: 'otpauth://totp/Team%20Inbox:ana%40example.com?issuer=Team%20Inbox&secret=JBSW…&algorithm=SHA1&digits=6&period=30',
  })
  otpauth_url!: string;
}

export class RecoveryCodesResponse {
  @ApiProperty({
    type: [String],
    example: ['7KQ4M-XW2PD'],
    description: 'Ten single-use codes that stand in for the app: shown this once, stored as hashes only',
  })
  recovery_codes!: string[];

  @ApiProperty({ description: 'A new access token: turning two-factor login on revoked every token issued before, this one included' })
  token!: string;

  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsString, Length, MaxLength } from 'class-validator';
import { IsOmittable } from '../common/omittable';
import { IsAccountEmail } from '../common/account-email';
import { MeResponse, UserResponse } from '../users/user.dto';
import { AVAILABILITIES, type Availability, EMAIL_NOTIFICATION_CHOICES, type EmailNotifications } from '../users/user.entity';
import { trimmed } from '../common/transforms';

/** A created or re-invited user. */
export class InvitedUserResponse extends UserResponse {
  @ApiPropertyOptional({
    example: 'https://inbox.example.com/accept-invite?token=…',
    description:
      'Only for an invited user while no EMAIL_PROVIDER is set: the invitation link, for the admin to pass on (valid 72 h, once). With a provider the link is e-mailed and never answered.',
  })
  invite_url?: string;
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'The `token` of the invitation link', writeOnly: true })
  @IsString()
  @Length(1, 256)
  token!: string;

  @ApiProperty({ minLength: 8, maxLength: 256, writeOnly: true })
  @IsString()
  @Length(8, 256)
  password!: string;

  @ApiPropertyOptional({ description: 'Replaces the name the admin gave' })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name?: string;
}

export class ForgotPasswordDto {
  @ApiProperty({ example: 'ana@example.com' })
  @IsString()
  @MaxLength(254)
  @IsAccountEmail()
  email!: string;
}

export class ResetPasswordDto {
  @ApiProperty({ description: 'The `token` of the reset link', writeOnly: true })
  @IsString()
  @Length(1, 256)
  token!: string;

  @ApiProperty({ minLength: 8, maxLength: 256, writeOnly: true })
  @IsString()
  @Length(8, 256)
  password!: string;
}

/** One's own profile: any of `name`, `password` (with `current_password`) and `email_notifications`. */
export class UpdateProfileDto {
  @ApiPropertyOptional({ example: 'Ana Silva' })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ minLength: 8, maxLength: 256, writeOnly: true, description: 'Needs `current_password`' })
  @IsOmittable()
  @IsString()
  @Length(8, 256)
  password?: string;

  @ApiPropertyOptional({ maxLength: 256, writeOnly: true, description: 'The password in use now; required with `password`' })
  @IsOmittable()
  @IsString()
  @MaxLength(256)
  current_password?: string;

  @ApiPropertyOptional({ enum: EMAIL_NOTIFICATION_CHOICES })
  @IsOmittable()
  @IsIn(EMAIL_NOTIFICATION_CHOICES, { message: `email_notifications must be one of ${EMAIL_NOTIFICATION_CHOICES.join(', ')}` })
  email_notifications?: EmailNotifications;

  @ApiPropertyOptional({
    enum: AVAILABILITIES,
    description:
      '`online`: takes conversations from the inboxes that assign by themselves, while an event stream is open or was within AVAILABILITY_TIMEOUT; ' +
      '`busy`: keeps their conversations and takes no new ones; `offline`: after AVAILABILITY_TIMEOUT their open conversations in such inboxes go back to the queue',
  })
  @IsOmittable()
  @IsIn(AVAILABILITIES, { message: `availability must be one of ${AVAILABILITIES.join(', ')}` })
  availability?: Availability;
}

/** The caller after a change; after a password change also their new token, the old ones being revoked. */
export class ProfileResponse extends MeResponse {
  @ApiPropertyOptional({
    description: 'Only after a password change: the new token. Every token issued before, the one of this request included, stops working.',
  })
  token?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only with `token`: when it expires' })
  expires_at?: string;
}

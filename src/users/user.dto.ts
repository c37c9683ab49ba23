import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { toPublicId } from '../common/ids';
import {
  EMAIL_NOTIFICATION_CHOICES,
  USER_ROLES,
  USER_STATUSES,
  type EmailNotifications,
  type UserRole,
  type UserRow,
  type UserStatus,
} from './user.entity';
import { trimmed } from '../common/transforms';

const lowerCase = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export class CreateUserDto {
  @ApiProperty({ example: 'ana@example.com' })
  @Transform(lowerCase)
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiPropertyOptional({
    minLength: 8,
    maxLength: 256,
    writeOnly: true,
    description:
      'Without it the user is `invited`: they are e-mailed a link to `<APP_URL>/accept-invite?token=…` (valid 72 h, once) where they choose their password',
  })
  @IsOptional()
  @IsString()
  @Length(8, 256)
  password?: string;

  @ApiProperty({ example: 'Ana Silva' })
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiProperty({ enum: USER_ROLES })
  @IsIn(USER_ROLES)
  role!: UserRole;

  @ApiPropertyOptional({ default: false, description: 'Lets an agent in while BETA_ACCESS_ONLY=true' })
  @IsOptional()
  @IsBoolean()
  beta_access?: boolean;
}

/** Any subset of the creation fields; a new password revokes the user's existing tokens. */
export class UpdateUserDto {
  @ApiPropertyOptional()
  @IsOptional()
  @Transform(lowerCase)
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({ minLength: 8, maxLength: 256, writeOnly: true })
  @IsOptional()
  @IsString()
  @Length(8, 256)
  password?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ enum: USER_ROLES })
  @IsOptional()
  @IsIn(USER_ROLES)
  role?: UserRole;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  beta_access?: boolean;
}

export class UserResponse {
  @ApiProperty({ example: 'user_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d' })
  id!: string;

  @ApiProperty()
  email!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: USER_ROLES })
  role!: UserRole;

  @ApiProperty()
  beta_access!: boolean;

  @ApiProperty({
    enum: USER_STATUSES,
    description: '`invited`: created without a password, cannot log in until the invitation is accepted',
  })
  status!: UserStatus;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  static of(user: UserRow): UserResponse {
    return {
      id: toPublicId('user', user.id),
      email: user.email,
      name: user.name,
      role: user.role,
      beta_access: user.beta_access,
      status: user.status,
      created_at: user.created_at.toISOString(),
    };
  }
}

/** The caller's own record: a user and their own preferences. */
export class MeResponse extends UserResponse {
  @ApiProperty({
    enum: EMAIL_NOTIFICATION_CHOICES,
    description:
      'Which notifications reach the caller by e-mail: `off`; `immediate`, each one still unread after EMAIL_NOTIFICATION_DELAY; `digest`, one e-mail an hour listing the unread ones',
  })
  email_notifications!: EmailNotifications;

  static override of(user: UserRow): MeResponse {
    return { ...UserResponse.of(user), email_notifications: user.email_notifications };
  }
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsString, Length, MaxLength } from 'class-validator';
import { IsPublicId } from '../common/is-public-id';
import { IsOmittable } from '../common/omittable';
import { IsAccountEmail } from '../common/account-email';
import { toPublicId } from '../common/ids';
import {
  type Availability,
  AVAILABILITIES,
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
  @IsAccountEmail()
  @MaxLength(254)
  email!: string;

  @ApiPropertyOptional({
    minLength: 8,
    maxLength: 256,
    writeOnly: true,
    description:
      'Without it the user is `invited`: they are e-mailed a link to `<APP_URL>/accept-invite?token=…` (valid 72 h, once) where they choose their password',
  })
  @IsOmittable()
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
  @IsOmittable()
  @IsBoolean()
  beta_access?: boolean;

  @ApiPropertyOptional({
    type: [String],
    example: ['inb_00000000000070008000000000000001'],
    description: 'The inboxes they work: an agent sees only their conversations (admins see every inbox). Default: the default inbox',
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(100)
  @IsPublicId('inb', 'inbox ids', { each: true })
  inbox_ids?: string[];
}

/** Any subset of the creation fields; a new password revokes the user's existing tokens. */
export class UpdateUserDto {
  @ApiPropertyOptional()
  @IsOmittable()
  @Transform(lowerCase)
  @IsAccountEmail()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({ minLength: 8, maxLength: 256, writeOnly: true })
  @IsOmittable()
  @IsString()
  @Length(8, 256)
  password?: string;

  @ApiPropertyOptional()
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ enum: USER_ROLES })
  @IsOmittable()
  @IsIn(USER_ROLES)
  role?: UserRole;

  @ApiPropertyOptional()
  @IsOmittable()
  @IsBoolean()
  beta_access?: boolean;

  @ApiPropertyOptional({
    type: [String],
    example: ['inb_00000000000070008000000000000001'],
    description: 'The inboxes they work: an agent sees only their conversations (admins see every inbox). Replaces the set',
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(100)
  @IsPublicId('inb', 'inbox ids', { each: true })
  inbox_ids?: string[];
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

  @ApiPropertyOptional({ description: 'The user signs in with a second factor (TOTP). Shown to admins and to the user themself' })
  two_factor_enabled?: boolean;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'After 10 failed logins in 15 minutes, login is refused until then; an admin can unlock (POST /api/v1/users/{id}/unlock). Shown to admins and to the user themself',
  })
  locked_until?: string | null;

  @ApiProperty({
    enum: AVAILABILITIES,
    description:
      'Set by the user (PATCH /api/v1/me): `online` takes conversations from the inboxes that assign by themselves, `busy` keeps theirs and takes none, ' +
      '`offline` is away. An `online` user whose last event stream ended more than AVAILABILITY_TIMEOUT ago becomes `offline`',
  })
  availability!: Availability;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /** `security`: with two_factor_enabled and locked_until (admins and the user themself; to others they would list whom to attack). */
  static of(user: UserRow, security = true): UserResponse {
    return {
      id: toPublicId('user', user.id),
      email: user.email,
      name: user.name,
      role: user.role,
      beta_access: user.beta_access,
      status: user.status,
      ...(security ? { two_factor_enabled: user.two_factor_enabled, locked_until: user.locked_until?.toISOString() ?? null } : {}),
      availability: user.availability,
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

  @ApiProperty({
    description:
      'The password was generated by the service (the first admin made without ADMIN_PASSWORD): the console asks for a new one until it is changed with PATCH /api/v1/me',
  })
  password_change_required!: boolean;

  @ApiProperty({
    description:
      'REQUIRE_2FA covers the caller and they have no second factor yet: until they enrol (POST /api/v1/me/2fa, then /enable), every other request answers 403',
  })
  two_factor_required!: boolean;

  static override of(user: UserRow, twoFactorRequired = false): MeResponse {
    return {
      ...UserResponse.of(user),
      email_notifications: user.email_notifications,
      password_change_required: user.password_change_required,
      two_factor_required: twoFactorRequired,
    };
  }
}

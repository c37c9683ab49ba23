import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { UserResponse } from '../users/user.dto';

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

export class LoginResponse {
  @ApiProperty({ description: 'Send as `Authorization: Bearer <token>`' })
  token!: string;

  @ApiProperty({ format: 'date-time' })
  expires_at!: string;

  @ApiProperty({ type: UserResponse })
  user!: UserResponse;
}
